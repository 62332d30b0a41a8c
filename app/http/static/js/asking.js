// A question being answered (a strike's preview and its reason, an undo, a dispute's reason, a
// ruling on a dispute) outlives the redraw that every new event brings: it is kept by what it is
// about (a key such as "strike:12"), and a row drawn anew takes it back. A question the server is
// asked about first goes in the row as it is when the answer comes, which may be a row drawn since.
const asking = new Map();

// Show `group` as the question about `key`, in `row` or the row drawn in its place since,
// instead of any question about the same thing asked before.
export function ask(key, row, group) {
  for (const [other, open] of asking) if (other !== key && !open.isConnected) asking.delete(other);
  asking.get(key)?.remove();
  asking.set(key, group);
  (row.isConnected ? row : document.querySelector(`[data-asks~="${key}"]`) ?? row).append(group);
  return group;
}

// A row drawn anew, that a question about `key` may be asked in: the one open goes back in it.
export function askedAgain(key, row) {
  row.dataset.asks = [row.dataset.asks, key].filter(Boolean).join(" ");
  const group = asking.get(key);
  if (group && !group.dataset.closed) row.append(group);
  return row;
}

// Close the question about `key` at once (another about the same thing is on its way from the server).
export function dismiss(key) {
  asking.get(key)?.remove();
  asking.delete(key);
}
