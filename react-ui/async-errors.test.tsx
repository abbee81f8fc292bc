import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { UnhandledErrorAlerts, unhandledErrorMessage, useRunAsync } from './async-errors.js';
import { LatchContext, type LatchContextValue } from './context.js';

/**
 * Unhandled async errors show an alert (spec section 8, client-side messages): a rejection nobody
 * handled reaches the provider's report function, and becomes a dismissable role="alert".
 */

describe('unhandled async errors', () => {
  it('a rejected task goes to the provider, and shows as a dismissable alert with its message', async () => {
    const reported: unknown[] = [];
    let runAsync: ReturnType<typeof useRunAsync> = () => undefined;
    function Probe() {
      runAsync = useRunAsync();
      return null;
    }
    renderToString(
      <LatchContext.Provider value={{ reportError: (error: unknown) => reported.push(error) } as unknown as LatchContextValue}>
        <Probe />
      </LatchContext.Provider>,
    );
    const boom = new Error('the redirect method failed');
    runAsync(Promise.reject(boom));
    runAsync(async () => {
      throw new Error('second');
    });
    runAsync(Promise.resolve('fine'));
    await vi.waitFor(() => expect(reported).toHaveLength(2));
    expect(reported[0]).toBe(boom);

    expect(unhandledErrorMessage(boom)).toBe('An unhandled error occurred: the redirect method failed');
    expect(unhandledErrorMessage('plain text')).toBe('An unhandled error occurred: plain text');
    expect(unhandledErrorMessage({})).toBe('An unhandled error occurred: unknown error');

    const html = renderToString(<UnhandledErrorAlerts errors={[{ id: 1, message: unhandledErrorMessage(boom) }]} dismiss={() => undefined} />);
    expect(html).toContain('role="alert"');
    expect(html).toContain('An unhandled error occurred: the redirect method failed');
    expect(html).toMatch(/<button[^>]*>Dismiss<\/button>/);
    expect(renderToString(<UnhandledErrorAlerts errors={[]} dismiss={() => undefined} />)).toBe('');
  });
});
