import fc from 'fast-check';
import type { CountingEvent, TaskCondition } from './conditions.js';
import type { ChainRules } from './walk.js';

/** Null three times out of four: optional conditions are usually absent. */
export const mostlyNull = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

// Random chains and event sets over small domains (3 event types, times -2..16,
// amounts 0..12, a few currencies in mixed case, short ids), so that ties,
// matches and near-misses are common.

const eventTypeArb = fc.constantFrom('reg', 'kyc', 'tx');
const timeArb = fc.bigInt({ min: -2n, max: 16n });
const amountArb = fc.integer({ min: 0, max: 24 }).map((n) => n / 2);
const currencyArb = fc.constantFrom('usd', 'USD', 'Usd', 'eur', 'EUR', 'gbp');

const conditionArb = fc.record({
  eventType: eventTypeArb,
  minAmount: mostlyNull(amountArb),
  currency: mostlyNull(currencyArb),
  // Skewed so that an after/before pair usually leaves a non-empty interval.
  afterUs: mostlyNull(fc.bigInt({ min: -2n, max: 10n })),
  beforeUs: mostlyNull(fc.bigInt({ min: 5n, max: 16n })),
});

export const chainArb: fc.Arbitrary<ChainRules> = fc.integer({ min: 1, max: 6 }).chain((n) =>
  fc
    .record({
      allowAnyOrder: fc.boolean(),
      // Unique, non-contiguous, in random order: the code must sort numerically.
      sequenceNumbers: fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: n, maxLength: n }),
      conditions: fc.array(conditionArb, { minLength: n, maxLength: n }),
      startUs: fc.bigInt({ min: -2n, max: 5n }),
      // Now and then a window too short to hold much, or empty.
      lengthUs: fc.oneof(
        { weight: 9, arbitrary: fc.bigInt({ min: 5n, max: 18n }) },
        { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 4n }) },
      ),
    })
    .map(({ allowAnyOrder, sequenceNumbers, conditions, startUs, lengthUs }) => ({
      allowAnyOrder,
      startUs,
      endUs: startUs + lengthUs,
      tasks: sequenceNumbers.map(
        (sequenceNumber, i): TaskCondition => ({
          id: `task-${i}`,
          sequenceNumber,
          ...(conditions[i] ?? { eventType: 'reg', minAmount: null, currency: null, afterUs: null, beforeUs: null }),
        }),
      ),
    })),
);

const eventArb: fc.Arbitrary<CountingEvent> = fc.record({
  // Mixed case and digits so plain code-unit order differs from locale order.
  id: fc.string({ unit: fc.constantFrom('a', 'B', 'c', 'D', '1', '_'), minLength: 1, maxLength: 3 }),
  eventType: eventTypeArb,
  occurredUs: timeArb,
  amount: fc.option(amountArb, { nil: null }),
  currency: fc.option(currencyArb, { nil: null }),
});

// Distinct stored events: one id is one event.
export const eventsArb = fc.uniqueArray(eventArb, { selector: (e) => e.id, maxLength: 16, size: 'max' });
