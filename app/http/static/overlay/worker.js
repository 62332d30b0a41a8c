// The one feed of a battle that every overlay page on this host shares (a SharedWorker).
//
// Why a SharedWorker rather than a BroadcastChannel with leader election: over HTTP/1.1 a browser
// keeps at most 6 connections per host, and an EventSource holds one for as long as it is open, so
// three overlays and a console in one OBS scene would each hold one and starve the rest. A
// SharedWorker is one script for every page of the origin that names it: it holds one EventSource
// per battle and token and hands each item to every page, and the browser itself keeps it alive
// while a page uses it and ends it when the last one goes. Nothing has to elect a leader, hand the
// feed over when the leader's page closes, or fill the gap between two leaders: with a
// BroadcastChannel every page would need all of that, and a page that joins late would need the
// history from another page anyway. Where SharedWorker is missing (Chrome on Android), a page
// follows the feed itself (stream.js).
import { connect } from "../morale-client.js";

const streams = new Map();  // "battle\ntoken\nlanguage" -> {items, dropped, status, ports, stop}
// The items held for a page that opens late: the last KEEP. A long battle's older items (the
// benchmark's has 100,000) would make the worker the heaviest thing in OBS; a page that opens late
// reads those from the server itself, once (stream.js), and the worker sends it the rest.
const KEEP = 1000;

// One feed per battle, token and language: two overlays in two languages read the items said in each.
function open(battle, token, language = "") {
  const key = `${battle}\n${token}\n${language}`;
  if (streams.has(key)) return streams.get(key);
  const stream = { key, items: [], dropped: 0, status: null, ports: new Set(), stop: null };
  const tell = (message) => { for (const port of stream.ports) port.postMessage(message); };
  stream.stop = connect("", battle, token, { language }).follow({
    after: 0,
    onItem: (item) => {
      stream.items.push(item);
      if (stream.items.length > KEEP) stream.dropped = stream.items.shift().seq;
      tell({ item });
    },
    onStatus: (status, error) => {
      stream.status = { status, problem: error ? { status: error.status, ...error.problem } : null };
      tell(stream.status);
    },
  });
  streams.set(key, stream);
  return stream;
}

function leave(stream, port) {
  stream.ports.delete(port);
  if (stream.ports.size === 0) {  // no page shows it now: its connection is given back
    stream.stop();
    streams.delete(stream.key);
  }
}

onconnect = (connected) => {
  const port = connected.ports[0];
  let joined = null;
  port.onmessage = ({ data }) => {
    if (data.follow && !joined) {
      joined = open(data.follow.battle, data.follow.token, data.follow.language);
      joined.ports.add(port);
      // What came before this page, in one message; `dropped`: the last seq it must read itself.
      port.postMessage({ items: joined.items, dropped: joined.dropped });
      if (joined.status) port.postMessage(joined.status);
    } else if (data.leave && joined) {
      leave(joined, port);
      joined = null;
    }
  };
  port.start();
};
