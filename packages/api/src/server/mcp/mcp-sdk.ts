// The MCP SDK values the endpoint uses, in one module the endpoint imports on its first request:
// the SDK and its JSON-schema validator (ajv) are about 400 KB the server need not load to start
// (docs/decisions/0150).
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
export { ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
export { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
export { sentArguments, ToolCallRequestSchema } from './tool-arguments.js';
