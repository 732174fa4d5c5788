/** A chain's max_completions budget and how many places it has given (docs/budgets.md). */
export interface ChainBudget {
  maxCompletions: number | null;
  admittedUsers: number;
}

/** Every place of the chain's max_completions is taken: it admits no new user (docs/budgets.md). */
export const admitsNoOneNew = (chain: ChainBudget) =>
  chain.maxCompletions !== null && chain.admittedUsers >= chain.maxCompletions;
