/**
 * If-None-Match against one strong entity tag (RFC 9110 §13.1.2): a list of
 * tags, each possibly weak (`W/"…"`; the weak comparison applies), or `*`.
 */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  for (const candidate of trimmed.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}
