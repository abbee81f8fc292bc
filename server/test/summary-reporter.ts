import { appendFileSync } from 'node:fs';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/**
 * Prints the plain closing line CI reads (`pglite: N passed, N failed`), and appends the counts to
 * $LATCH_TEST_SUMMARY_FILE so .ci/run can add up its passes.
 */
export default class SummaryReporter implements Reporter {
  private passed = 0;
  private failed = 0;
  private skipped = 0;

  onTestCaseResult(testCase: TestCase): void {
    const state = testCase.result().state;
    if (state === 'passed') this.passed++;
    else if (state === 'failed') this.failed++;
    else this.skipped++;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: readonly unknown[]): void {
    // An error outside any test counts as a failure: a file that fails to load, or a beforeAll /
    // afterAll hook that throws (its tests are then reported as skipped, not failed).
    let outside = errors.length;
    for (const module of modules) {
      outside += module.errors().length;
      for (const suite of module.children.allSuites()) outside += suite.errors().length;
    }
    const failed = this.failed + outside;
    const label = process.env.LATCH_TEST_LABEL ?? (process.env.LATCH_TEST_DB === 'postgres' ? 'postgres' : 'pglite');
    console.log(`\n${label}: ${this.passed} passed, ${failed} failed, ${this.skipped} skipped`);
    if (process.env.LATCH_TEST_SUMMARY_FILE) appendFileSync(process.env.LATCH_TEST_SUMMARY_FILE, `${this.passed} ${failed} ${this.skipped}\n`);
  }
}
