#!/usr/bin/env node
// Recomputes a mystery box draw from what the service published
// (docs/mystery-boxes.md), with nothing but Node's crypto:
//
//   curl -s -H "X-API-Key: $KEY" -H "X-API-Secret: $SECRET" \
//     http://localhost:3000/v1/rewards/draws/$CLAIM_ID | node docs/verify-draw.mjs
//   node docs/verify-draw.mjs draw.json
//
// Optionally pass the seed hash you saw published before the draw
// (`draw_seed_hash` in GET active) as --published-hash <hex>.
// Exit 0 when every step checks, 1 when one does not, 2 when the input is unusable.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const hashFlag = args.indexOf('--published-hash');
const publishedHash = hashFlag >= 0 ? args.splice(hashFlag, 2)[1] : undefined;
const text = readFileSync(args[0] ?? 0, 'utf8');

let draw;
try {
  const parsed = JSON.parse(text);
  draw = parsed.data ?? parsed;
  if (typeof draw.claim_id !== 'string' || !Array.isArray(draw.candidates)) throw new Error('not a draw');
} catch (error) {
  console.error(`unusable input: ${error.message} (give the JSON of GET /v1/rewards/draws/{claim_id})`);
  process.exit(2);
}

const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

if (publishedHash !== undefined) check(publishedHash === draw.seed_hash, 'the draw used the seed whose hash was published');

const totalWeight = draw.candidates.reduce((sum, prize) => sum + prize.weight, 0);
check(totalWeight === draw.total_weight, `total weight of the candidates is ${totalWeight}`);

if (draw.server_seed) {
  const seed = Buffer.from(draw.server_seed, 'hex');
  check(createHash('sha256').update(seed).digest('hex') === draw.seed_hash, 'sha256(server_seed) is the published seed_hash');
  const digest = createHmac('sha256', seed).update(draw.claim_id, 'utf8').digest('hex');
  check(digest === draw.digest, 'HMAC-SHA256(server_seed, claim_id) is the digest');
} else {
  console.log(
    'note the seed is not revealed yet (the chain has not ended nor been rotated): only the mapping below can be checked now',
  );
}

const roll = Number(BigInt(`0x${draw.digest.slice(0, 16)}`) % BigInt(totalWeight));
check(roll === draw.roll, `roll = first 8 bytes of the digest mod ${totalWeight} = ${roll}`);

let passed = 0;
const prize = draw.candidates.find((candidate) => roll < (passed += candidate.weight))?.prize_id;
check(prize === draw.prize_id, `the roll falls on prize ${prize}`);

console.log(
  failures.length === 0
    ? `verified: claim ${draw.claim_id} drew ${draw.prize_id}`
    : `NOT verified: ${failures.length} check(s) failed`,
);
process.exit(failures.length === 0 ? 0 : 1);
