// A foreign server for fastmcp's Rust client: the TypeScript SDK v2 server (`serveStdio`, which serves
// either era on one stdio connection), with a plain tool and one that asks the user with the SDK's
// `inputRequired` (a 2026-07-28 input_required round; on a legacy connection the SDK's shim asks with a
// server-to-client `elicitation/create`).
//
//   node server.mjs NODE_MODULES_DIR
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const modules = path.resolve(process.argv[2]);
const load = (name) => import(pathToFileURL(createRequire(path.join(modules, "x.js")).resolve(name)).href);
const { McpServer, inputRequired, acceptedContent } = await load("@modelcontextprotocol/server");
const { serveStdio } = await load("@modelcontextprotocol/server/stdio");
const z = await load("zod");

serveStdio(() => {
  const server = new McpServer({ name: "ts-foreign", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("add", { inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("ship", { inputSchema: z.object({ service: z.string() }) }, async ({ service }, ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm");
    if (!answer) {
      const confirm = inputRequired.elicit({ message: `Ship ${service}?`, requestedSchema: z.object({ confirm: z.boolean() }) });
      return inputRequired({ inputRequests: { confirm } });
    }
    return { content: [{ type: "text", text: answer.confirm ? `shipped ${service}` : `kept ${service}` }] };
  });
  return server;
});
