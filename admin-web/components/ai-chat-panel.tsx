import { type FormEvent, useEffect, useRef, useState } from 'react';
import { type AdminApp, type AiChatAnswer, KnownError } from '../../sdk/index.js';
import type { AiChatContextType } from '../../contract/schemas/ai-chat.js';
import { errorMessage } from '../api.js';

/**
 * The AI drafting assistant (issue 17 item 6), standalone so the email editor can mount it beside
 * its source: it streams each turn (`streamAiChat`), shows the text as it is written and every
 * proposal already rendered by the server (or the error it still had), and hands an accepted one
 * to `onUse`. The thread is saved on the server (PATCH) as it goes. When the server has no
 * LATCH_AI_BASE_URL it says how to turn the assistant on.
 */
export interface AiChatPanelProps {
  admin: AdminApp;
  contextType: AiChatContextType;
  /** The source in the editor now; the model edits it. */
  currentSource?: string;
  /** Called with a proposal's TSX when the owner clicks "Use this". */
  onUse?: (tsxSource: string) => void;
}

type Turn = { role: 'user'; text: string } | { role: 'assistant'; answer: AiChatAnswer };

export function AiChatPanel({ admin, contextType, currentSource, onUse }: AiChatPanelProps) {
  const threadId = useRef(crypto.randomUUID()).current;
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  // Asks once, on open, whether the server has an AI provider (LATCH_AI_BASE_URL), so the panel
  // says how to turn it on before anyone types a message.
  useEffect(() => {
    admin.getAiChatThread(threadId).catch((caught: unknown) => {
      if (caught instanceof KnownError && caught.code === 'AI_CHAT_NOT_CONFIGURED') setError(caught);
    });
  }, [admin, threadId]);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || streaming !== null) return;
    const history = [...turns, { role: 'user' as const, text }];
    setTurns(history);
    setDraft('');
    setError(null);
    setStreaming('');
    const messages = history.map((turn) =>
      turn.role === 'user'
        ? { role: 'user' as const, content: turn.text }
        : {
            role: 'assistant' as const,
            content: turn.answer.content.map((c) => (c.type === 'text' ? c.text : `(proposed a new source)`)).join('\n') || '(proposal)',
          },
    );
    try {
      const answer = await admin.streamAiChat(threadId, { context_type: contextType, messages, current_source: currentSource }, (e) => {
        if (e.event === 'text') setStreaming((s) => (s ?? '') + e.data.delta);
        else setStatus(e.data.message);
      });
      setTurns([...history, { role: 'assistant', answer }]);
      await admin.saveAiChatMessage(threadId, { role: 'user', content: text });
      await admin.saveAiChatMessage(threadId, { role: 'assistant', content: answer.content });
    } catch (caught) {
      setError(caught);
    } finally {
      setStreaming(null);
      setStatus(null);
    }
  };

  const notConfigured = error instanceof KnownError && error.code === 'AI_CHAT_NOT_CONFIGURED';
  return (
    <section className="card stack" aria-label="AI assistant">
      <h3 style={{ margin: 0 }}>AI assistant</h3>
      {notConfigured ? (
        <div className="alert alert-warning" role="alert">
          The AI assistant is not enabled on this server. To turn it on, set <code>LATCH_AI_BASE_URL</code> (any OpenAI-compatible endpoint, such as{' '}
          <code>https://api.openai.com/v1</code> or a local Ollama at <code>http://127.0.0.1:11434/v1</code>), <code>LATCH_AI_MODEL</code> and, if the endpoint
          needs one, <code>LATCH_AI_API_KEY</code>, then restart Latch.
        </div>
      ) : null}
      <ol className="stack" aria-label="Conversation" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {turns.map((turn, i) =>
          turn.role === 'user' ? (
            <li key={i} className="muted">
              <strong>You:</strong> {turn.text}
            </li>
          ) : (
            <li key={i} className="stack">
              {turn.answer.content.map((block, j) =>
                block.type === 'text' ? (
                  <p key={j} style={{ margin: 0 }}>
                    {block.text}
                  </p>
                ) : (
                  <div key={j} className="stack" aria-label="Proposal">
                    {block.rendered ? (
                      <iframe
                        title="Proposal preview"
                        sandbox=""
                        srcDoc={block.rendered.html}
                        style={{ width: '100%', height: 240, border: '1px solid var(--border)' }}
                      />
                    ) : (
                      <div className="alert alert-error" role="alert">
                        The proposal still does not render: {block.render_error}
                      </div>
                    )}
                    {block.rendered && onUse ? (
                      <button type="button" className="btn" onClick={() => onUse(block.args.tsx_source)}>
                        Use this
                      </button>
                    ) : null}
                  </div>
                ),
              )}
            </li>
          ),
        )}
        {streaming !== null ? (
          <li aria-live="polite" aria-label="Answer in progress">
            {streaming || '…'} {status ? <span className="muted small">{status}</span> : null}
          </li>
        ) : null}
      </ol>
      {error && !notConfigured ? (
        <div className="alert alert-error" role="alert">
          {errorMessage(error)}
        </div>
      ) : null}
      <form onSubmit={(e) => void send(e)} className="row" style={{ gap: 8 }}>
        <input
          aria-label="Message to the AI assistant"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="Describe the email you want"
          style={{ flex: 1 }}
        />
        <button type="submit" className="btn btn-primary" disabled={streaming !== null}>
          Send
        </button>
      </form>
    </section>
  );
}
