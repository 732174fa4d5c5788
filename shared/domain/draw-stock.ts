/** A prize as the draw's stock rule reads it: null stock is unlimited. */
export interface PrizeStock {
  stock: number | null;
}

/** A prize that can still be drawn: unlimited, or some left. */
export const inStock = (prize: PrizeStock) => prize.stock === null || prize.stock > 0;
