import type { StaticDecode } from 'typebox';
import type { SettingsDeclaration } from '../config/settings.ts';
import type { Connection, Provider } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { CrmAdapter, ProviderDeps, ProviderModule } from './adapter.ts';

/** Every provider's settings by provider id, as loadConfig read them (`config.providers`). */
export type ProviderSettings = Readonly<Record<string, unknown>>;

/** A provider's own settings, typed by its module; none means loadConfig was not given the module. */
export function settingsOf<D extends SettingsDeclaration>(
  settings: ProviderSettings,
  module: Pick<ProviderModule<D>, 'profile' | 'settings'>,
): StaticDecode<D> {
  const own = settings[module.profile.id];
  if (own === undefined) {
    throw new Error(
      `the configuration holds no settings for the provider ${module.profile.id}: load it with that provider's module (loadConfig(env, modules))`,
    );
  }
  return own as StaticDecode<D>;
}

/** Provider id → adapter, built from provider modules; nothing else in the service enumerates CRMs. */
export class ProviderRegistry {
  readonly #adapters = new Map<Provider, CrmAdapter>();

  constructor(
    modules: readonly ProviderModule[],
    deps: Omit<ProviderDeps, 'settings'>,
    settings: ProviderSettings,
  ) {
    for (const module of modules) {
      if (this.#adapters.has(module.profile.id))
        throw new Error(`provider ${module.profile.id} is listed twice`);
      this.#adapters.set(
        module.profile.id,
        module.create({ ...deps, settings: settingsOf(settings, module) }),
      );
    }
  }

  /** A stored connection of a CRM this build does not register answers 503 naming it. */
  adapterFor(connection: Pick<Connection, 'provider'>): CrmAdapter {
    const adapter = this.#adapters.get(connection.provider);
    if (adapter === undefined) {
      throw new ApiError(
        'service_unavailable',
        `This connection is for the CRM "${connection.provider.slice(0, 50)}", which this deployment of the service does not support. Connect the account again with a supported CRM, or run a deployment that includes it.`,
      );
    }
    return adapter;
  }

  list(): CrmAdapter[] {
    return [...this.#adapters.values()];
  }
}
