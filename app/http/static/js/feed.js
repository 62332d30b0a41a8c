// Following the battle live through the server's feed (Server-Sent Events). The browser reconnects
// by itself and sends Last-Event-ID, so it misses nothing and gets nothing twice; if the feed is
// closed for good (the server restarted, a laptop woke after hours), it is opened again after the
// last event seen.
import { state } from "./state.js";
import { EVENT_TYPES } from "./kinds.js";

// Returns a function that stops following (another battle, or another token, is opened).
export function follow(after, { onItem, onStatus }) {
  let lastSeen = after;
  let source = null;
  let stopped = false;
  const open = () => {
    if (stopped) return;
    source = new EventSource(state.api.feedUrl(lastSeen));
    source.onopen = () => onStatus("live");
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        onStatus("offline");
        setTimeout(open, 3000);
      } else {
        onStatus(navigator.onLine ? "reconnecting" : "offline");  // a page opened without the network
      }
    };
    // Each item comes first under its event's type (then again under each kind of outcome it
    // caused, which the console does not listen for): one listener per type sees each item once.
    const received = (message) => {
      const item = JSON.parse(message.data);
      lastSeen = Math.max(lastSeen, item.seq);
      onStatus("live");  // a message is the proof
      onItem(item);
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, received);
  };
  addEventListener("offline", () => { if (!stopped) onStatus("offline"); });
  addEventListener("online", () => { if (!stopped && source.readyState !== EventSource.OPEN) onStatus("reconnecting"); });
  open();
  return () => { stopped = true; source?.close(); };
}
