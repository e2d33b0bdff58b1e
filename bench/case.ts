// A benchmark case: one module per thing measured (MCP relay latency today, the UI later).
// A case owns its resources and releases them before run() settles, whether it succeeds or throws.

export interface BenchCase {
  /** Short name, used to pick cases: `npm run bench -- <name>…`. */
  name: string;
  /** Runs the measurement and prints its report with `out`. Throws only when something broke. */
  run(out: (line: string) => void): Promise<void>;
}
