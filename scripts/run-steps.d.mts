export interface Step {
  name: string;
  command: string[];
  fatal?: boolean;
}
export declare function runSteps(steps: Step[], write?: (text: string) => void): boolean;
