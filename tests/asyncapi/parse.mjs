// Parses an AsyncAPI document with the AsyncAPI project's own parser (@asyncapi/parser), from a file
// or a URL (its relative $refs resolved beside it), and prints, as one JSON object, what the parser
// found wrong (`diagnostics`) and what it understood: each channel's address and messages, each
// message's name, SSE event name and payload schema, its references resolved.
// Usage: node parse.mjs FILE-OR-URL
import { Parser, fromFile, fromURL } from "@asyncapi/parser";

const where = process.argv[2];
const parser = new Parser();
const source = /^https?:/.test(where) ? fromURL(parser, where) : fromFile(parser, where);
const { document, diagnostics } = await source.parse();

const message = (m) => ({
  name: m.name(),
  sse_event: m.extensions().get("x-sse-event")?.value() ?? null,
  content_type: m.contentType(),
  schema_format: m.schemaFormat(),
  payload: m.payload()?.json().schema ?? null,
});

const understood = document && {
  version: document.version(),
  channels: Object.fromEntries(document.channels().all().map((c) => [c.id(), {
    address: c.address(),
    messages: c.messages().all().map(message),
    extensions: Object.fromEntries(c.extensions().all().map((e) => [e.id(), e.value()])),
  }])),
  operations: Object.fromEntries(document.operations().all().map((o) => [o.id(), {
    action: o.action(),
    channels: o.channels().all().map((c) => c.id()),
  }])),
};

console.log(JSON.stringify({
  diagnostics: diagnostics.map((d) => ({ severity: d.severity, code: d.code, message: d.message, path: d.path.join("/") })),
  document: understood ?? null,
}));
