// top-attended.js: a top-5 table's rows, the tokens one query token attends to most (the explorer's, and the head
// picked in section 7). Token text is set with textContent.
import { plainLabel } from '../../lib/shared/token-text.js';

// The rows of a top-5 table: each key token (top: [{index, weight}] from topAttended) and its weight.
export function renderTopAttended(tbody, labels, top) {
  tbody.replaceChildren(...top.map(({ index, weight }) => {
    const tr = document.createElement('tr');
    const a = tr.insertCell(), b = tr.insertCell();
    a.textContent = plainLabel(labels[index]);
    a.title = `token ${index}`;
    b.className = 'num-cell';
    b.textContent = weight.toFixed(3);
    tr.dataset.index = index;
    return tr;
  }));
}
