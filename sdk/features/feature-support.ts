/** Whether the server supports a feature before the SDK calls it (POST /check-feature-support). */
import { AppCore } from '../core.js';
import { type RouterOutputs, SDK_VERSION } from '../transport.js';

export type FeatureSupport = RouterOutputs['featureSupport']['check'];

/** Thrown by a feature the server (or the project) has not enabled; `reason` says what to configure. */
export class FeatureNotSupportedError extends Error {
  constructor(
    readonly featureName: string,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'FeatureNotSupportedError';
  }
}

/** Answers per app, by feature name: one request per feature and app (a failed request is not kept). */
const answers = new WeakMap<AppCore, Map<string, Promise<FeatureSupport>>>();

export abstract class FeatureSupportFeature extends AppCore {
  /**
   * Whether this server and project support a feature (`payments`, `ai-chat`, `data-vault`,
   * `webhooks`, `workflow-tokens`), with the reason when not. Cached per app.
   *
   * @example
   * const { supported, reason } = await app.checkFeatureSupport('payments');
   */
  checkFeatureSupport(featureName: string): Promise<FeatureSupport> {
    let cache = answers.get(this);
    if (!cache) answers.set(this, (cache = new Map()));
    let answer = cache.get(featureName);
    if (!answer) {
      answer = this.call((context) => this.trpc.featureSupport.check.mutate({ feature_name: featureName, client_version: SDK_VERSION }, { context }));
      cache.set(featureName, answer);
      answer.catch(() => cache.delete(featureName));
    }
    return answer;
  }

  /** Throws FeatureNotSupportedError (with the server's reason) unless the feature is supported. */
  protected async requireFeatureSupport(featureName: string): Promise<void> {
    const { supported, reason } = await this.checkFeatureSupport(featureName);
    if (!supported) throw new FeatureNotSupportedError(featureName, reason ?? `The server does not support ${featureName}.`);
  }
}
