// A ~/.claude.json as a long-time Claude Code user has one: a prompt history in every project, a few
// of them with their own MCP servers, pretty-printed as Claude Code writes it. `bytes` sets its size.
export function bigClaudeJson(
  bytes: number,
  mcp: { command: string; args: string[] } = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'] },
): string {
  const projects: Record<string, unknown> = {};
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const history = Array.from({ length: 40 }, (_, i) => ({
      display: `please refactor module ${i} of project ${n} so that it handles an empty input, and write the tests for it ${'with care '.repeat(12)}`,
      pastedContents: {},
    }));
    const project = {
      allowedTools: [],
      history,
      mcpContextUris: [],
      enabledMcpjsonServers: [],
      disabledMcpjsonServers: [],
      hasTrustDialogAccepted: true,
      mcpServers:
        n % 40 === 0
          ? { [`tools-${n}`]: { type: 'stdio', command: 'node', args: [`/srv/project-${n}/mcp.js`], env: { PROJECT_TOKEN: `project-secret-${n}` } } }
          : {},
      lastCost: 0.12,
      lastDuration: 93_000,
    };
    projects[`/home/me/src/project-${n}`] = project;
    size += JSON.stringify(project, null, 2).length + 40;
  }
  return (
    JSON.stringify(
      {
        numStartups: 812,
        installMethod: 'npm-global',
        autoUpdates: true,
        userID: 'fixture',
        mcpServers: { filesystem: { type: 'stdio', ...mcp, env: {} } },
        projects,
      },
      null,
      2,
    ) + '\n'
  );
}
