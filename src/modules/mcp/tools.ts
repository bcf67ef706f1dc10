// The connector's tools: one file each in ./tools/ (listed in ./tools/index.ts), the server that
// registers them in ./server.ts. This path stays for what imports the list from here.
export { CONFIRMING_TOOLS, TOOLS, TOOL_SCOPES, nextInjectionOn, type ToolContext, type ToolResult, type ToolSpec } from './tools/index.ts';
