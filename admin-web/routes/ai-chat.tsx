import { useState } from 'react';
import { AiChatPanel } from '../components/ai-chat-panel.js';
import { PageHeader } from '../components/ui.js';
import type { PageProps } from './page-props.js';
import type { AiChatContextType } from '../../contract/schemas/ai-chat.js';

/** The AI drafting assistant on a page of its own (the email editor can mount AiChatPanel beside its source instead). */
export function AiChatPage({ admin }: PageProps) {
  const [contextType, setContextType] = useState<AiChatContextType>('email-template');
  const [source, setSource] = useState('');
  return (
    <>
      <PageHeader title="AI assistant" description="Ask for an email template, draft or theme; every proposal is compiled and rendered before you see it." />
      <label className="row" style={{ gap: 8 }}>
        Writing a
        <select aria-label="What to write" value={contextType} onChange={(e) => setContextType(e.target.value as AiChatContextType)}>
          <option value="email-template">template</option>
          <option value="email-draft">draft</option>
          <option value="email-theme">theme</option>
        </select>
      </label>
      <AiChatPanel admin={admin} contextType={contextType} currentSource={source || undefined} onUse={setSource} />
      {source ? (
        <pre aria-label="Accepted source" className="card" style={{ whiteSpace: 'pre-wrap' }}>
          {source}
        </pre>
      ) : null}
    </>
  );
}
