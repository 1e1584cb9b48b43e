export declare function timingReport(
  results: { file: string; ms: number; passed: number; failed: number; skipped: number }[],
  wallMs: number,
  top?: number,
): string;
