// An independent MCP client (the official TypeScript SDK) for earshot.
//
//   EARSHOT_API_KEY=esk_… node client.mjs stdio /path/to/earshot mcp --data DIR
//   EARSHOT_API_KEY=esk_… node client.mjs http http://127.0.0.1:8080/mcp
//
// Lists the tools, calls list_monitors (and list_mentions when it exists),
// times tools/list and the list call, prints the results, and exits non-zero
// when anything is off.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
const key = process.env.EARSHOT_API_KEY || "";
const REPEAT = Number(process.env.E2E_REPEAT || 20);

function fail(msg) {
  console.error(`FAIL (${mode}): ${msg}`);
  process.exit(1);
}

function transport() {
  if (mode === "stdio") {
    return new StdioClientTransport({ command: target, args: rest, env: { ...process.env }, stderr: "inherit" });
  }
  if (mode === "http") {
    return new StreamableHTTPClientTransport(new URL(target), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
  }
  fail("usage: client.mjs stdio CMD [ARGS…] | client.mjs http URL");
}

function ms(t0) {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function timed(fn) {
  const t0 = process.hrtime.bigint();
  const out = await fn();
  return [out, ms(t0)];
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const client = new Client({ name: "earshot-e2e", version: "1.0.0" });
const [, connectMs] = await timed(() => client.connect(transport()));
const info = client.getServerVersion();
console.log(`[${mode}] connected to ${info?.name} ${info?.version} (protocol negotiated) in ${connectMs.toFixed(1)} ms`);

const [tools, firstListMs] = await timed(() => client.listTools());
const names = tools.tools.map((t) => t.name).sort();
console.log(`[${mode}] tools/list: ${names.length} tools in ${firstListMs.toFixed(1)} ms: ${names.join(", ")}`);
if (!names.includes("list_monitors")) fail("no list_monitors tool");
for (const t of tools.tools) {
  if (t.inputSchema?.type !== "object" || t.inputSchema?.additionalProperties !== false) fail(`tool ${t.name}: bad input schema`);
}

const [mon] = await timed(() => client.callTool({ name: "list_monitors", arguments: {} }));
if (mon.isError) fail(`list_monitors answered an error: ${JSON.stringify(mon.structuredContent)}`);
const env = mon.structuredContent;
if (!env || !Array.isArray(env.data?.monitors) || env.meta?.capability !== "list_monitors") {
  fail(`list_monitors: unexpected envelope ${JSON.stringify(mon)}`);
}
const textEnv = JSON.parse(mon.content[0].text);
if (JSON.stringify(textEnv) !== JSON.stringify(env)) fail("text content differs from structured content");
console.log(`[${mode}] list_monitors: ${env.data.monitors.length} monitors: ${JSON.stringify(env.data.monitors.map((m) => ({ id: m.id, name: m.name, keywords: m.keywords })))}`);
console.log(`[${mode}] meta: ${JSON.stringify(env.meta)}`);

// A tool the credential may not call answers the error envelope, not a protocol error.
const bad = await client.callTool({ name: "get_monitor", arguments: { id: "00000000-0000-4000-8000-000000000000" } });
if (!bad.isError || bad.structuredContent?.error?.code !== "NOT_FOUND") fail(`get_monitor on a missing id: ${JSON.stringify(bad)}`);
console.log(`[${mode}] get_monitor(missing id) -> isError ${bad.isError}, ${JSON.stringify(bad.structuredContent.error)}`);

const listTool = names.includes("list_mentions") ? "list_mentions" : "list_monitors";
const listTimes = [];
const callTimes = [];
for (let i = 0; i < REPEAT; i++) {
  listTimes.push((await timed(() => client.listTools()))[1]);
  const [res, t] = await timed(() => client.callTool({ name: listTool, arguments: listTool === "list_mentions" ? { limit: 50 } : {} }));
  if (res.isError) fail(`${listTool}: ${JSON.stringify(res.structuredContent)}`);
  callTimes.push(t);
}
console.log(
  `[${mode}] TIMING tools/list first ${firstListMs.toFixed(1)} ms, median ${median(listTimes).toFixed(2)} ms over ${REPEAT}; ` +
    `${listTool} median ${median(callTimes).toFixed(2)} ms, max ${Math.max(...callTimes).toFixed(2)} ms over ${REPEAT}`,
);

const prompts = await client.listPrompts();
console.log(`[${mode}] prompts: ${prompts.prompts.map((p) => p.name).join(", ")}`);
await client.close();
console.log(`[${mode}] OK`);
