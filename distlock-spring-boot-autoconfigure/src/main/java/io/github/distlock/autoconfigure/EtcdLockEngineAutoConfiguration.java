package io.github.distlock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.etcd.EtcdLockEngine;

/**
 * The etcd lock engine, when {@code distlock-etcd} and jetcd are on the class path and {@code distlock.backend} is
 * {@code etcd} or unset with no other engine present: on the application's jetcd {@link Client}, or on one made from
 * {@code distlock.etcd.*}. Before the first lock, start-up reads etcd once and takes and frees one lock, so an
 * unreachable cluster, wrong credentials or a missing permission fail it naming which.
 */
@AutoConfiguration(before = DistLockAutoConfiguration.class)
@ConditionalOnClass({ Client.class, EtcdLockEngine.class })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnLockBackend(LockBackend.ETCD)
@EnableConfigurationProperties(DistLockProperties.class)
@Import(EtcdLockEngineAutoConfiguration.EtcdClientFromProperties.class)
public final class EtcdLockEngineAutoConfiguration {

	/** The lock name of start-up's one lock: a key of its own, so it never meets an application's lock. */
	private static final String STARTUP_CHECK = "distlock-startup-check";

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockEngine.class)
	EtcdLockEngine distLockEngine(ObjectProvider<Client> etcdClient, DistLockProperties properties,
			ObjectProvider<LockLostListener> listeners) {
		Client client = etcdClient.getIfUnique();
		if (client == null) {
			throw new IllegalStateException("distlock's etcd engine needs one io.etcd.jetcd.Client bean, or "
					+ "distlock.etcd.endpoints to make its own");
		}
		EtcdLockProperties etcd = properties.getEtcd();
		EtcdLockEngine engine = new EtcdLockEngine(client, etcd.getRoot(), etcd.getLeaseTtl(), etcd.getElectionTimeout(),
				(lost) -> DistLockAutoConfiguration.notifyAll(listeners, lost));
		try {
			check(engine, store(etcd), etcd.getConnectTimeout());
		}
		catch (RuntimeException ex) {
			engine.close();
			throw ex;
		}
		return engine;
	}

	/** One read, then one lock taken and freed: the calls every lock makes, with the application's permissions. */
	private static void check(EtcdLockEngine engine, String store, Duration timeout) {
		try {
			engine.ping(timeout);
			engine.acquire(new LockRequest(STARTUP_CHECK, UUID.randomUUID().toString(), timeout, Duration.ZERO, false,
					null))
				.release();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockStoreConnectionException(store, "Interrupted while checking etcd", "Start again.", ex);
		}
		catch (RuntimeException ex) {
			throw new LockStoreConnectionException(store, engine.describeFailure(ex, timeout),
					"Check distlock.etcd.endpoints (or the etcd Client bean), the credentials, and that the user may "
							+ "read and write keys under " + engine.storeDetails(timeout).get("root"),
					ex);
		}
	}

	/** The configured endpoints, for messages; endpoints carry no credentials in jetcd's form. */
	private static String store(EtcdLockProperties etcd) {
		List<String> endpoints = etcd.getEndpoints();
		return "etcd" + (endpoints.isEmpty() ? "" : " at " + String.join(", ", endpoints));
	}

	/** A jetcd client of distlock's own, when the application has none. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(Client.class)
	static class EtcdClientFromProperties {

		@Bean(destroyMethod = "close")
		Client distLockEtcdClient(DistLockProperties properties) {
			EtcdLockProperties etcd = properties.getEtcd();
			List<String> endpoints = etcd.getEndpoints();
			if (endpoints.isEmpty()) {
				throw new IllegalStateException("distlock's etcd engine needs distlock.etcd.endpoints (such as "
						+ "http://etcd-1:2379), or one io.etcd.jetcd.Client bean");
			}
			ClientBuilder builder = Client.builder()
				.endpoints(endpoints.stream().map(String::strip).toArray(String[]::new))
				.connectTimeout(etcd.getConnectTimeout())
				// A call to an etcd that cannot be reached fails at once, so its cause is named; the lock call's
				// own wait time says how long to keep trying.
				.waitForReady(false);
			if (etcd.getUsername() != null) {
				builder.user(ByteSequence.from(etcd.getUsername(), StandardCharsets.UTF_8));
			}
			if (etcd.getPassword() != null) {
				builder.password(ByteSequence.from(etcd.getPassword(), StandardCharsets.UTF_8));
			}
			return builder.build();
		}

	}

}
