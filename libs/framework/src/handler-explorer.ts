import { type CommandDisclosure, commandDisclosureOf } from './command-disclosure';
import { Injectable } from '@nestjs/common';
import { DiscoveryService, ModuleRef, ModulesContainer, type NestContainer } from '@nestjs/core';
import { ApplyFailureReporter } from './apply-failure-reporter';
import { BareAdmission } from './bare-admission';
import { type ForeignHandler, foreignHandlersOf } from './foreign-handlers';
import {
  HandlerDiscoveryError,
  type ScannedHandlers,
  methodNamesOf,
  scanHandlers,
  stateMetadataOf,
} from './handler-scan';
import { type InstanceWrapper, nestContainerOf } from './nest/nest-internals';
import { ONCE_COMMAND_METADATA, ONCE_HTTP_METADATA } from './once.constants';

/**
 * Finds, across every module of the application, the `@Command` apply steps,
 * their `@Admit` steps and the `@ReplicatedState` providers; and the NestJS
 * message and event handlers that are not once handlers.
 */
@Injectable()
export class HandlerExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly modules: ModulesContainer,
    private readonly moduleRef: ModuleRef,
  ) {}

  explore(): ScannedHandlers {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    const instances: object[] = [];
    const moduleKeys = new Map<object, string>();
    for (const wrapper of wrappers) {
      const instance = wrapper.instance as unknown;
      if (!instance || typeof instance !== 'object') continue;
      if (!wrapper.isDependencyTreeStatic() && this.isOnceRelevant(wrapper)) {
        throw new HandlerDiscoveryError(
          `${wrapper.name} declares replicated commands or state; it must be a singleton (not request or transient scoped)`,
        );
      }
      instances.push(instance);
      if (wrapper.host && !moduleKeys.has(instance)) moduleKeys.set(instance, wrapper.host.token);
    }
    const reporter = new ApplyFailureReporter(this.modules, this.applicationConfig());
    const moduleStates = this.statesByModule();
    return scanHandlers(
      instances,
      (instance, methodKey) => reporter.forMethod(instance, methodKey, moduleKeys.get(instance)),
      (instance) => {
        const names = moduleStates.get(moduleKeys.get(instance) ?? '');
        return names?.length === 1 ? names[0] : undefined;
      },
    );
  }

  /** Module token → the names of the replicated states its own providers declare. */
  private statesByModule(): Map<string, string[]> {
    const found = new Map<string, string[]>();
    for (const wrapper of this.discovery.getProviders()) {
      const declared = stateMetadataOf(wrapper.metatype);
      const token = wrapper.host?.token;
      if (!declared || token === undefined) continue;
      const names = found.get(token) ?? [];
      if (!names.includes(declared.name)) names.push(declared.name);
      found.set(token, names);
    }
    return found;
  }

  /** What each `@Command` declared sensitive in its body (see {@link commandDisclosureOf}). */
  commandDisclosure(): CommandDisclosure {
    const instances = [...this.discovery.getProviders(), ...this.discovery.getControllers()]
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is object => !!instance && typeof instance === 'object');
    return commandDisclosureOf(instances);
  }

  /** The controllers that declare `@Idempotent` routes, for the runtime to bind (see `bindHttpHost`). */
  idempotentControllers(): object[] {
    return this.discovery
      .getControllers()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is object => !!instance && typeof instance === 'object')
      .filter((instance) =>
        methodNamesOf(instance).some((key) => {
          const method = (instance as Record<string, unknown>)[key];
          return typeof method === 'function' && Reflect.hasMetadata(ONCE_HTTP_METADATA, method);
        }),
      );
  }

  /** The application's NestJS message and event handlers that are not `@Command` or `@Query`. */
  foreignHandlers(): ForeignHandler[] {
    const controllers = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is object => !!instance && typeof instance === 'object');
    return foreignHandlersOf(controllers);
  }

  /**
   * The `@Command` routes whose NestJS pipeline holds nothing but once's own
   * pieces, each with its {@link BareAdmission}. Read once NestJS has built
   * the handlers' pipelines (it reads the global enhancers then): what was
   * global then still is, so a route found bare here was built bare.
   */
  bareAdmissions(): Map<string, BareAdmission> {
    const container = this.container();
    // A hybrid app's microservice may have a configuration of its own, out of reach.
    const config = container.getHttpAdapterRef() ? undefined : container.applicationConfig;
    const found = new Map<string, BareAdmission>();
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as unknown;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const injectables = wrapper.host?.injectables;
      const injectable = (metatype: object) => injectables?.get(metatype as never)?.instance;
      for (const methodKey of methodNamesOf(instance)) {
        const method = (instance as Record<string, unknown>)[methodKey];
        if (typeof method !== 'function') continue;
        const command = Reflect.getMetadata(ONCE_COMMAND_METADATA, method) as
          { pattern: string } | undefined;
        if (!command) continue;
        const bare = BareAdmission.of({ instance, methodKey, injectable }, { config });
        if (bare) found.set(command.pattern, bare);
      }
    }
    return found;
  }

  /** The application's configuration (its global filters): NestJS offers no provider for it. */
  private applicationConfig() {
    return this.container().applicationConfig;
  }

  private container(): NestContainer {
    return nestContainerOf(this.moduleRef);
  }

  private isOnceRelevant(wrapper: InstanceWrapper): boolean {
    if (stateMetadataOf(wrapper.metatype) !== undefined) return true;
    const instance = wrapper.instance as object | undefined;
    return instance ? scanHandlers([instance]).commands.length > 0 : false;
  }
}
