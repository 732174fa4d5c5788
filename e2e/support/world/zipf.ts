/**
 * Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^s: a
 * few ranks take most draws, as a few users send most of a platform's events
 * (s = 1.1 over 50,000 ranks: the first ~14 %, the first 50 ~53 %).
 */
export function zipfSampler(n: number, s: number, next: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank += 1) {
    total += 1 / (rank + 1) ** s;
    cumulative[rank] = total;
  }
  return () => {
    const target = next() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

/** The share of draws the first `k` ranks get (for the run's description). */
export function zipfHeadShare(n: number, s: number, k: number): number {
  let head = 0;
  let total = 0;
  for (let rank = 0; rank < n; rank += 1) {
    const weight = 1 / (rank + 1) ** s;
    total += weight;
    if (rank < k) head += weight;
  }
  return head / total;
}
