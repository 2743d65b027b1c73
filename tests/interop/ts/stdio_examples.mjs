// The TypeScript SDK v2 client (an independent implementation) drives fastmcp's resumable examples over
// stdio, answering elicitation and sampling through its request handlers.
// Usage: node stdio_examples.mjs <target-dir-with-binaries> [legacy|auto|2026-07-28 ...]          (stdio)
//        node stdio_examples.mjs http:<deploy-port>,<survey-port>,<sum-port> [modes ...]          (HTTP)
// Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import path from 'node:path';

const [target, ...modesArg] = process.argv.slice(2);
const modes = modesArg.length ? modesArg : ['legacy'];

const cases = [
  ['deploy', 'deploy', { service: 'api', replicas: 3 }, 'Deployed api x3: shiny notes', true],
  ['deploy', 'deploy', { service: 'api', replicas: 3 }, 'Deployment of api cancelled.', false],
  ['survey', 'survey', { questions: ['name', 'color', 'pet'] }, 'name=a-name; color=a-color; pet=a-pet', true],
  ['sum', 'sum', { numbers: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], chunk: 3 }, 'sum=55 in 4 rounds', true],
];

let passed = 0;
let failed = 0;
for (const mode of modes) {
  for (const [binary, tool, args, expected, accept] of cases) {
    const overHttp = target.startsWith('http:');
    const label = `[${overHttp ? 'http' : 'stdio'} ${mode}] ${tool}${accept ? '' : ' declined'}`;
    const client = new Client({ name: 'fastmcp-interop', version: '0.0.1' }, {
      capabilities: { elicitation: {}, sampling: {} },
      versionNegotiation: mode === 'legacy' || mode === 'auto' ? { mode } : { mode: { pin: mode } },
      inputRequired: { autoFulfill: true, maxRounds: 10 },
    });
    client.setRequestHandler('elicitation/create', async (req) => {
      if (!accept) return { action: 'decline' };
      const props = req.params.requestedSchema?.properties ?? {};
      if ('confirm' in props) return { action: 'accept', content: { confirm: true } };
      return { action: 'accept', content: { answer: `a-${req.params.message}` } };
    });
    client.setRequestHandler('sampling/createMessage', async (req) => {
      if (req.params.maxTokens !== 200) throw new Error(`maxTokens ${req.params.maxTokens}`);
      return { role: 'assistant', content: { type: 'text', text: 'shiny notes' }, model: 'fake-model', stopReason: 'endTurn' };
    });
    const ports = Object.fromEntries(['deploy', 'survey', 'sum'].map((b, i) => [b, target.slice(5).split(',')[i]]));
    const transport = overHttp
      ? new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${ports[binary]}/mcp`))
      : new StdioClientTransport({ command: path.join(target, binary), args: [], stderr: 'ignore' });
    try {
      await client.connect(transport);
      const result = await client.callTool({ name: tool, arguments: args });
      const text = result.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
      if (text === expected && !result.isError) {
        passed++;
        console.log(`PASS ${label} (${client.getNegotiatedProtocolVersion()})`);
      } else {
        failed++;
        console.log(`FAIL ${label}: got ${JSON.stringify(text)}, want ${JSON.stringify(expected)}`);
      }
    } catch (e) {
      failed++;
      console.log(`FAIL ${label}: ${e?.stack ?? e}`);
    } finally {
      await client.close().catch(() => {});
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
