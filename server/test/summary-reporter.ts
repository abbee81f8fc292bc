import { appendFileSync } from 'node:fs';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/**
 * Prints the plain closing line CI reads (`pglite: N passed, N failed`), and appends the counts to
 * $LATCH_TEST_SUMMARY_FILE so .ci/run can add up its passes; each failure's file, test name and first error line
 * go to that file's `.failures` sibling, so CI can print them last.
 */
export default class SummaryReporter implements Reporter {
  private passed = 0;
  private failed = 0;
  private skipped = 0;
  private readonly failures: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const state = testCase.result().state;
    if (state === 'passed') this.passed++;
    else if (state === 'failed') {
      this.failed++;
      const first = testCase.result().errors?.[0]?.message?.split('\n')[0] ?? '';
      this.failures.push(`${testCase.module.moduleId.replace(process.cwd() + '/', '')} > ${testCase.fullName}: ${first.slice(0, 300)}`);
    } else this.skipped++;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: readonly unknown[]): void {
    // An error outside any test counts as a failure: a file that fails to load, or a beforeAll /
    // afterAll hook that throws (its tests are then reported as skipped, not failed).
    let outside = errors.length;
    for (const error of errors) this.failures.push(`outside any test: ${describe(error)}`);
    for (const module of modules) {
      outside += module.errors().length;
      const file = module.moduleId.replace(process.cwd() + '/', '');
      for (const error of module.errors()) this.failures.push(`${file} (file): ${describe(error)}`);
      for (const suite of module.children.allSuites()) {
        outside += suite.errors().length;
        for (const error of suite.errors()) this.failures.push(`${file} > ${suite.fullName} (hook): ${describe(error)}`);
      }
    }
    const failed = this.failed + outside;
    const label = process.env.LATCH_TEST_LABEL ?? (process.env.LATCH_TEST_DB === 'postgres' ? 'postgres' : 'pglite');
    console.log(`\n${label}: ${this.passed} passed, ${failed} failed, ${this.skipped} skipped`);
    for (const failure of this.failures) console.log(`  failed: ${failure}`);
    const file = process.env.LATCH_TEST_SUMMARY_FILE;
    if (file) {
      appendFileSync(file, `${this.passed} ${failed} ${this.skipped}\n`);
      // .ci/run repeats these after its closing line, where a log cut to its tail still shows them.
      for (const failure of this.failures) appendFileSync(`${file}.failures`, `${label}: ${failure}\n`);
    }
  }
}

function describe(error: unknown): string {
  const message =
    error instanceof Error
      ? error.message
      : typeof error === 'object' && error && 'message' in error
        ? String((error as { message: unknown }).message)
        : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 300);
}
