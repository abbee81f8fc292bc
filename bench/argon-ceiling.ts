/**
 * `tsx bench/argon-ceiling.ts [seconds]`: the machine's argon2id ceiling with Latch's parameters
 * (server/crypto/passwords.ts: m = 19 MiB, t = 2, p = 1): verifications and hashes per second on
 * all cores, in a process of its own (no HTTP, no database, no Latch). bench/run.ts runs it in the
 * same run as the sign-in and sign-up scenarios and reports them as ratios to it: what a password
 * sign-in could reach on this machine if everything but the hash were free.
 *
 * Prints one JSON line: {verifyPerSecond, hashPerSecond, workers, seconds}.
 */
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

// The same options as the server (passwords.ts keeps them private; the PHC string the bench's
// users get says m=19456,t=2,p=1, and bench/run.ts prints it beside this figure).
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const seconds = Number(process.argv[2] ?? 10);
// One call in flight per core plus one, so a core never waits for the next call to be issued.
const workers = availableParallelism() + 1;

async function saturate(op: () => Promise<unknown>, ms: number): Promise<number> {
  const until = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) {
        await op();
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

const stored = await hash('correct horse battery staple', OPTIONS);
// Warm-up: the thread pool and the allocator.
await saturate(() => verify(stored, 'correct horse battery staple'), 1000);
const verifyPerSecond = await saturate(() => verify(stored, 'correct horse battery staple'), seconds * 1000);
const hashPerSecond = await saturate(() => hash('correct horse battery staple', OPTIONS), (seconds * 1000) / 2);
console.log(JSON.stringify({ verifyPerSecond, hashPerSecond, workers, seconds }));
