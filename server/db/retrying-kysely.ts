import { Kysely, type KyselyConfig, type Transaction, type TransactionBuilder } from 'kysely';

/**
 * Transactions that PostgreSQL aborted for a reason that retrying fixes are run again (issue 21
 * item 5): 40P01, a deadlock (two transactions locking rows in opposite orders; PostgreSQL kills
 * one), and 40001, a serialization failure (REPEATABLE READ / SERIALIZABLE, and the default on
 * distributed engines such as YugabyteDB and CockroachDB). The whole callback runs again from
 * BEGIN, so a callback must keep its effects inside the transaction, as the house rule already
 * asks (emails and webhooks go through the jobs outbox, written in the same transaction).
 */
export const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40001', '40P01']);

/** Attempts in all; the waits between them grow and are jittered so the two losers do not meet again. */
export const TRANSACTION_ATTEMPTS = 4;

export function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}

/** Counts retries, for /metrics and the tests. */
export const transactionRetries = { count: 0 };

function retrying<DB>(builder: TransactionBuilder<DB>): TransactionBuilder<DB> {
  return new Proxy(builder, {
    get(target, property, receiver) {
      if (property === 'execute') {
        return async <T>(callback: (trx: Transaction<DB>) => Promise<T>): Promise<T> => {
          for (let attempt = 1; ; attempt++) {
            try {
              return await target.execute(callback);
            } catch (error) {
              if (attempt >= TRANSACTION_ATTEMPTS || !isRetryableTransactionError(error)) throw error;
              transactionRetries.count++;
              await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt + Math.random() * 10 * attempt));
            }
          }
        };
      }
      if (property === 'setIsolationLevel' || property === 'setAccessMode') {
        return (value: never) => retrying((target[property] as (v: never) => TransactionBuilder<DB>).call(target, value));
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

/** Kysely whose `transaction()` retries deadlocks and serialization failures. */
export class RetryingKysely<DB> extends Kysely<DB> {
  constructor(config: KyselyConfig) {
    super(config);
  }

  override transaction(): TransactionBuilder<DB> {
    return retrying(super.transaction());
  }
}
