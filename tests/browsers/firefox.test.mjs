// The browser suite (suite.mjs) in Firefox ESR.
import { browserSuite } from './suite.mjs';
import { launchFirefox } from './firefox.mjs';

browserSuite(launchFirefox);
