import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { type InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { HandlerDiscoveryError, type ScannedHandlers, scanHandlers } from './handler-scan';
import { ONCE_STATE_METADATA } from './once.constants';

/**
 * Finds, across every module of the application, the @Command apply steps,
 * their @Admit steps and the @ReplicatedState providers.
 */
@Injectable()
export class HandlerExplorer {
  constructor(private readonly discovery: DiscoveryService) {}

  explore(): ScannedHandlers {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    const instances: object[] = [];
    for (const wrapper of wrappers) {
      const instance = wrapper.instance as unknown;
      if (!instance || typeof instance !== 'object') continue;
      if (!wrapper.isDependencyTreeStatic() && this.isOnceRelevant(wrapper)) {
        throw new HandlerDiscoveryError(
          `${wrapper.name} declares replicated commands or state; it must be a singleton (not request or transient scoped)`,
        );
      }
      instances.push(instance);
    }
    return scanHandlers(instances);
  }

  private isOnceRelevant(wrapper: InstanceWrapper): boolean {
    if (
      wrapper.metatype &&
      Reflect.getMetadata(ONCE_STATE_METADATA, wrapper.metatype) !== undefined
    )
      return true;
    const instance = wrapper.instance as object | undefined;
    return instance ? scanHandlers([instance]).commands.length > 0 : false;
  }
}
