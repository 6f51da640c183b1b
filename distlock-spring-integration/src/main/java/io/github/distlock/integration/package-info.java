/**
 * Spring Integration on distlock: {@link io.github.distlock.integration.DistLockRegistry} is a Spring Integration
 * {@code LockRegistry} (expirable and renewable, as Spring Integration 7 defines them) on any distlock lock engine,
 * so aggregators, {@code LockRegistryLeaderInitiator} and the other users of a lock registry lock in the store distlock
 * already uses, with its watchdog, loss reports and fencing tokens.
 *
 * <pre>{@code
 * @Bean
 * DistLockRegistry lockRegistry(LockEngine engine) {
 *     return new DistLockRegistry(engine);
 * }
 * }</pre>
 *
 * With Spring Boot, distlock's auto-configuration defines that bean when this module is on the class path and the
 * application defines no {@code LockRegistry} of its own.
 */
@NullMarked
package io.github.distlock.integration;

import org.jspecify.annotations.NullMarked;
