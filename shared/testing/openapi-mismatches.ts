/**
 * Answers that broke the served OpenAPI documents during the current test.
 * Checked calls throw at once as well; this record is for the ones whose
 * error a retry loop swallows (`eventually` polling through an outage), so
 * that a later good answer cannot hide an earlier undocumented one. Kept
 * free of the validator so that the vitest hooks which read it load nothing.
 */
const recorded: string[] = [];

export function recordOpenApiMismatch(description: string) {
  recorded.push(description);
}

/** The mismatches recorded since the last call, now forgotten. */
export function takeOpenApiMismatches(): string[] {
  return recorded.splice(0);
}
