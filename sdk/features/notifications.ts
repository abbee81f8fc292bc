/**
 * Notification categories (issue 17 item 4): a signed-in user's own choices (client), any user's
 * (server), and the project's categories and AI drafting assistant (admin, the console).
 */
import { knownErrorFromBody } from '../../contract/errors/known-errors.js';
import type { LatchQuery } from '../cache.js';
import { AppCore } from '../core.js';
import { buildHeaders, type RouterInputs, type RouterOutputs } from '../transport.js';

export type NotificationCategoryData = RouterOutputs['notifications']['listPreferences']['items'][number];
export type OwnerNotificationCategory = RouterOutputs['notifications']['listCategories']['items'][number];
export type AiChatInput = Omit<RouterInputs['aiChat']['ask'], 'thread_id'>;
export type AiChatAnswer = RouterOutputs['aiChat']['ask'];
export type AiChatStreamEvent = { event: 'text'; data: { delta: string } } | { event: 'status'; data: { message: string } };

/** A category as a user sees it, with a way to change their choice. */
export interface NotificationCategory {
  id: string;
  name: string;
  enabled: boolean;
  canDisable: boolean;
  /** Turns the category on or off for this user (NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED for a transactional one). */
  setEnabled(enabled: boolean): Promise<void>;
}

const NOTIFICATION_DATA = ['notifications.'] as const;

/** The reads and writes both the client and the server features build on: composed into both apps first. */
export abstract class NotificationCategoriesBase extends AppCore {
  protected categoryObjects(userId: string, items: NotificationCategoryData[]): NotificationCategory[] {
    return items.map((item) => ({
      id: item.notification_category_id,
      name: item.notification_category_name,
      enabled: item.enabled,
      canDisable: item.can_disable,
      setEnabled: (enabled: boolean) => this.writeNotificationPreference(userId, item.notification_category_id, enabled),
    }));
  }

  protected async readNotificationPreferences(userId: string): Promise<NotificationCategory[]> {
    const list = await this.call((context) => this.trpc.notifications.listPreferences.query({ user_id: userId }, { context }), {
      session: this.sessionFor(userId === 'me' ? undefined : userId),
    });
    return this.categoryObjects(userId, list.items);
  }

  protected async writeNotificationPreference(userId: string, categoryId: string, enabled: boolean): Promise<void> {
    const input = { user_id: userId, notification_category_id: categoryId, enabled };
    await this.mutate([...NOTIFICATION_DATA], (context) => this.trpc.notifications.updatePreference.mutate(input, { context }), {
      session: this.sessionFor(userId === 'me' ? undefined : userId),
    });
  }
}

export abstract class NotificationsFeature extends NotificationCategoriesBase {
  /**
   * The signed-in user's notification categories, each with their choice.
   *
   * @example
   * const categories = await app.listNotificationCategories();
   * await categories.find((c) => c.name === 'Marketing')?.setEnabled(false);
   */
  async listNotificationCategories(): Promise<NotificationCategory[]> {
    return this.readNotificationPreferences('me');
  }

  /** The cached read behind listNotificationCategories (the wire objects), for React hooks. */
  notificationCategoriesQuery(): LatchQuery<NotificationCategoryData[]> {
    const input = { user_id: 'me' as const };
    return this.listQuery(true, 'notifications.listPreferences', input, (context) => this.trpc.notifications.listPreferences.query(input, { context }));
  }

  /** Turns a category on or off for the signed-in user. */
  async setNotificationEnabled(categoryId: string, enabled: boolean): Promise<void> {
    await this.writeNotificationPreference('me', categoryId, enabled);
  }
}

export abstract class ServerNotificationsFeature extends NotificationCategoriesBase {
  /** Any user's notification categories, with their choice. */
  async listUserNotificationCategories(userId: string): Promise<NotificationCategory[]> {
    return this.readNotificationPreferences(userId);
  }

  async setUserNotificationEnabled(userId: string, categoryId: string, enabled: boolean): Promise<void> {
    await this.writeNotificationPreference(userId, categoryId, enabled);
  }
}

export abstract class AdminNotificationsFeature extends AppCore {
  /** The project's categories: Transactional and Marketing, then the owner's. */
  async listProjectNotificationCategories(): Promise<OwnerNotificationCategory[]> {
    return (await this.call((context) => this.trpc.notifications.listCategories.query({}, { context }))).items;
  }

  async createNotificationCategory(input: RouterInputs['notifications']['createCategory']): Promise<OwnerNotificationCategory> {
    return this.mutate([...NOTIFICATION_DATA], (context) => this.trpc.notifications.createCategory.mutate(input, { context }));
  }

  async deleteNotificationCategory(categoryId: string): Promise<void> {
    await this.mutate([...NOTIFICATION_DATA], (context) =>
      this.trpc.notifications.deleteCategory.mutate({ notification_category_id: categoryId }, { context }),
    );
  }

  /** One AI drafting turn, not streamed (AI_CHAT_NOT_CONFIGURED when the server has no LATCH_AI_BASE_URL). */
  async askAiChat(threadId: string, input: AiChatInput): Promise<AiChatAnswer> {
    return this.call((context) => this.trpc.aiChat.ask.mutate({ ...input, thread_id: threadId }, { context }));
  }

  /**
   * The same turn, streamed: `onEvent` gets the text as the model writes it and progress messages;
   * the answer (text and rendered proposals) is returned at the end.
   */
  async streamAiChat(threadId: string, input: AiChatInput, onEvent: (event: AiChatStreamEvent) => void): Promise<AiChatAnswer> {
    const headers = await buildHeaders(this.credentials, { access: 'admin' });
    const response = await fetch(`${this.baseUrl}/api/v1/internal/ai-chat/${encodeURIComponent(threadId)}/stream`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    if (!response.headers.get('content-type')?.includes('text/event-stream')) throw knownErrorFromBody((await response.json()) as never);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as unknown;
        if (event === 'done') return data as AiChatAnswer;
        if (event === 'error') throw knownErrorFromBody(data as never);
        if (event === 'text' || event === 'status') onEvent({ event, data } as AiChatStreamEvent);
      }
    }
    throw new Error('The AI chat stream ended without an answer');
  }

  async saveAiChatMessage(threadId: string, message: unknown): Promise<void> {
    await this.call((context) => this.trpc.aiChat.save.mutate({ thread_id: threadId, message: message as never }, { context }));
  }

  async getAiChatThread(threadId: string): Promise<unknown[]> {
    return (await this.call((context) => this.trpc.aiChat.get.query({ thread_id: threadId }, { context }))).messages;
  }
}
