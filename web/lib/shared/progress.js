// progress.js: the one throttle of byte progress. Downloads, loads and conversions see chunks of a few kB each, and a
// message per chunk would flood the page; one every `every` bytes is plenty, and a new stage or the last byte is
// always told.
const MB = 1 << 20;

// report({stage, loaded, total}) called at most once per `every` bytes of a stage, and always on a stage's first
// report and on reaching total (once). report may be undefined (nobody listens). -> the throttled report
export function throttledProgress(report, every = MB) {
  let stage, reported = 0;
  return (progress) => {
    const { loaded, total } = progress;
    const done = total > 0 && loaded >= total && loaded !== reported;
    if (progress.stage === stage && loaded - reported < every && !done) return;
    stage = progress.stage;
    reported = loaded;
    report?.(progress);
  };
}
