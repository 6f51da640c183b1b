package io.github.distlock.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Runs distlock's Redis engine in a test context against a real {@code redis-server} of the context's own, and gives
 * the test {@link DistLocks} and {@link DistLockAssert} to look at and meddle with the locks it stores.
 * <p>
 * Put it next to {@code @SpringBootTest}. For each test context (contexts are cached and shared as usual) one
 * {@code redis-server} is started on a free loopback port, from the {@code PATH}, else the binary inside
 * embedded-redis, or exactly the one that {@code distlock.test.redis-server} names; it stops when the context closes.
 * <p>
 * There is no fallback to any other Redis: {@code spring.data.redis.*} (host, port, URL, Sentinel, Cluster,
 * credentials, SSL), a service connection and {@code distlock.redis.config} are all overridden to point at that
 * server, a {@code RedissonClient} of the application's own that connects elsewhere fails the context, and so does a
 * server that cannot be found or started, with a message saying what to install.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureDistLock {

}
