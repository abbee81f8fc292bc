import type { AiChatContextType } from '../../../contract/schemas/ai-chat.js';
import type { ToolDefinition } from './provider.js';

export const PROPOSE_TOOL = 'propose_email_source';

export const PROPOSE_TOOL_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: PROPOSE_TOOL,
    description: 'Propose the complete TSX source of the email file being edited. It is compiled and rendered before the owner sees it.',
    parameters: {
      type: 'object',
      properties: { tsx_source: { type: 'string', description: 'The whole file, not a diff.' } },
      required: ['tsx_source'],
      additionalProperties: false,
    },
  },
};

const WHAT: Record<AiChatContextType, string> = {
  'email-template':
    'an email template. It exports `function EmailTemplate({ user, project, variables })` and may export `variablesSchema` (an object of variable name → "string" | "number" | "boolean").',
  'email-draft': 'an email draft (a one-off email). It exports `function EmailTemplate({ user, project })`.',
  'email-theme':
    'an email theme. It exports `function EmailTheme({ children, unsubscribeLink, projectLogos })`, which wraps every email: render `children`, and a link to `unsubscribeLink` when it is not null.',
};

/** The system prompt: what the file is, what it may import, and how to answer. */
export function systemPrompt(contextType: AiChatContextType, currentSource: string | undefined): string {
  return [
    `You help the owner of a project write ${WHAT[contextType]}`,
    'The file is TSX. It may import only from "react", "@react-email/components" (Html, Head, Body, Container, Section, Row, Column, Text, Button, Link, Img, Hr, Heading, Preview, Font) and "@latch/emails" (Subject, NotificationCategory). No other import works, and there is no network, fetch or browser API.',
    'Set the subject with <Subject value="..." /> and the notification category with <NotificationCategory value="Transactional" /> (or "Marketing") inside the returned elements. Tailwind classes in className work. Links must be http, https or mailto.',
    `To change the file, call ${PROPOSE_TOOL} with the complete new source; add one or two sentences saying what you changed. If the tool answers with a compile or render error, fix the source and call the tool again.`,
    currentSource ? `The file now:\n\`\`\`tsx\n${currentSource}\n\`\`\`` : 'The file is new: write it from scratch.',
  ].join('\n\n');
}
