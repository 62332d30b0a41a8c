// A page's way to the battle's feed: through the SharedWorker every overlay on this host shares
// (worker.js says why), or, where a browser has none, straight from the page with morale-client.
import { connect } from "../morale-client.js";

// Calls onItem with each item once, in log order, and onStatus(status, problem) with "live",
// "reconnecting", "offline" or "refused" (and the server's problem). `language`: the items' words'.
export function follow(battle, token, language, { onItem, onStatus }) {
  if (typeof SharedWorker !== "function") {
    return connect("", battle, token, { language }).follow({
      after: 0,
      onItem,
      onStatus: (status, error) => onStatus(status, error ? { status: error.status, ...error.problem } : null),
    });
  }
  const worker = new SharedWorker(new URL("./worker.js", import.meta.url), { type: "module", name: "morale-feed" });
  const port = worker.port;
  let held = null;  // what the worker sends while the page reads the items it no longer holds
  const older = async (dropped) => {
    for (;;) {
      try {
        return (await connect("", battle, token, { language }).items(0)).filter((item) => item.seq <= dropped);
      } catch {
        onStatus("offline", null);  // tried again until the server answers: nothing is skipped
        await new Promise((wake) => setTimeout(wake, 3000));
      }
    }
  };
  port.onmessage = async ({ data }) => {
    if (data.items && data.dropped) {
      held = [...data.items];
      for (const item of await older(data.dropped)) onItem(item);
      for (const item of held) onItem(item);
      held = null;
    } else if (data.items) {
      for (const item of data.items) onItem(item);
    } else if (data.item) {
      if (held) held.push(data.item);
      else onItem(data.item);
    } else if (data.status) {
      onStatus(data.status, data.problem);
    }
  };
  port.start();
  port.postMessage({ follow: { battle, token, language } });
  const stop = () => port.postMessage({ leave: true });
  addEventListener("pagehide", stop);  // the worker gives the connection back once no page needs it
  return stop;
}
