/** Anonymous users: a session without an account, upgraded in place by a later sign-up (all levels). */
import { AppCore } from '../core.js';

/** The anonymous sign-up in flight, per app: concurrent calls share it. */
const anonymousSignUps = new WeakMap<AppCore, Promise<void>>();

/** Signing up anonymous users. */
export abstract class AnonymousFeature extends AppCore {
  /**
   * Signs up an anonymous user (when the project allows it) and signs them in. Concurrent calls
   * share one sign-up.
   *
   * @example
   * await app.signUpAnonymously();
   */
  async signUpAnonymously(): Promise<void> {
    await this.session.peek();
    let signUp = anonymousSignUps.get(this);
    if (!signUp) {
      signUp = this.startSession(this.call((context) => this.trpc.auth.anonymousSignUp.mutate({}, { context }), { access: 'client' }))
        .then(() => undefined)
        .finally(() => {
          anonymousSignUps.delete(this);
        });
      anonymousSignUps.set(this, signUp);
    }
    return signUp;
  }
}
