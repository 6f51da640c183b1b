package io.github.distlock.autoconfigure;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.redis.RedLockEngine;
import io.github.distlock.redis.RedLockStartupCheck;

/**
 * The RedLock engine, when {@code distlock.redlock.nodes} names the independent Redis masters it locks on (and
 * Redis is the application's backend): instead of the single-Redis engine, and without a client from
 * {@code spring.data.redis.*}. The masters are checked before the first lock ({@link RedLockStartupCheck}).
 */
@AutoConfiguration(before = { RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class },
		afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnClass({ RedissonClient.class, RedLockEngine.class })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnLockBackend(LockBackend.REDIS)
@Conditional(RedLockConditions.NodesSet.class)
@EnableConfigurationProperties(DistLockProperties.class)
public final class RedLockEngineAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(RedLockClients.class)
	RedLockClients distLockRedLockClients(DistLockProperties properties, ObjectProvider<SslBundles> sslBundles) {
		String bundle = properties.getRedlock().getSsl().getBundle();
		if (bundle == null) {
			return RedLockClients.connect(properties.getRedlock(), null);
		}
		SslBundles bundles = sslBundles.getIfAvailable();
		if (bundles == null) {
			throw new IllegalStateException("distlock.redlock.ssl.bundle names '" + bundle + "', but there are no SSL "
					+ "bundles: define it under spring.ssl.bundle.*");
		}
		return RedLockClients.connect(properties.getRedlock(), bundles.getBundle(bundle));
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockEngine.class)
	RedLockEngine distLockEngine(RedLockClients clients, DistLockProperties properties,
			ObjectProvider<LockLostListener> listeners) {
		RedLockStartupCheck.verify(clients.clients(), clients.reachable(), properties.redisKeyPrefix());
		RedLockProperties redlock = properties.getRedlock();
		return new RedLockEngine(clients.clients(), properties.redisKeyPrefix(), redlock.getNodeTimeout(),
				redlock.getRetryDelay(), (lost) -> DistLockAutoConfiguration.notifyAll(listeners, lost));
	}

}
