export declare const SOURCE_DIRS: string[];
export declare const BUILD_FILES: string[];
export declare const STAMP: string;
export interface Freshness {
  fresh: boolean;
  unbuilt: boolean;
  changed: string[];
  added: string[];
  removed: string[];
}
export declare function sourceDigests(root: string): Record<string, string>;
export declare function clearStamp(root: string): void;
export declare function writeStamp(root: string, digests: Record<string, string>): void;
export declare function distFreshness(root: string): Freshness;
export declare function freshnessMessage(result: Freshness): string;
