import fc from 'fast-check';

/** Null three times out of four: optional conditions are usually absent. */
export const mostlyNull = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
