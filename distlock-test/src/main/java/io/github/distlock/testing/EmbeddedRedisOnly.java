package io.github.distlock.testing;

import java.util.List;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

import io.github.distlock.testing.redis.EmbeddedRedisServer;

/**
 * Fails the test context when a {@link RedissonClient} connects to any Redis but the context's own server, before
 * distlock uses it: settings can be overridden, but a client the application builds itself (from settings of its
 * own) can reach a shared or production Redis, which a test must never lock in.
 * <p>
 * The client is asked which server answers it ({@code INFO server}: process id and port), so the check holds whatever
 * address or topology the client was given.
 */
final class EmbeddedRedisOnly implements BeanPostProcessor {

	private static final String SERVER_IDENTITY = LuaScript.load("server_identity.lua");

	private final ObjectProvider<EmbeddedRedisServer> server;

	EmbeddedRedisOnly(ObjectProvider<EmbeddedRedisServer> server) {
		this.server = server;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof RedissonClient client) {
			check(client, beanName, this.server.getObject());
		}
		return bean;
	}

	private static void check(RedissonClient client, String beanName, EmbeddedRedisServer server) {
		List<String> identity;
		try {
			identity = client.getScript(StringCodec.INSTANCE)
				.eval(RScript.Mode.READ_ONLY, SERVER_IDENTITY, RScript.ReturnType.LIST, List.of());
		}
		catch (RedisException ex) {
			throw new IllegalStateException("@AutoConfigureDistLock could not ask RedissonClient bean '" + beanName
					+ "' which Redis it connects to (" + ex.getMessage() + "); a test context may only use its own "
					+ "redis-server at " + server.host() + ":" + server.port(), ex);
		}
		String expected = server.pid() + " " + server.port();
		String actual = identity.get(0) + " " + identity.get(1);
		if (!expected.equals(actual)) {
			throw new IllegalStateException("RedissonClient bean '" + beanName + "' connects to another Redis "
					+ "(process " + identity.get(0) + ", port " + identity.get(1) + ") than this test context's own "
					+ "redis-server at " + server.host() + ":" + server.port() + " (process " + server.pid() + "). "
					+ "@AutoConfigureDistLock never lets a test lock in another Redis: build the client from "
					+ "spring.data.redis.*, which point at the test's server, or leave the bean out of this test.");
		}
	}

}
