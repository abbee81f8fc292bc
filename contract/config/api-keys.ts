/** Project config, API-keys section: whether users and teams may hold API keys (spec section 3, "Config flags"). */
import { z } from 'zod';

export interface ApiKeysConfig {
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
}

export const DEFAULT_API_KEYS_CONFIG: ApiKeysConfig = {
  allow_user_api_keys: false,
  allow_team_api_keys: false,
};

export const apiKeysConfigFields = {
  allow_user_api_keys: z.boolean(),
  allow_team_api_keys: z.boolean(),
};
