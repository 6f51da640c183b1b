package io.github.distlock.test;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class several independent redis-server processes, the masters of a RedLock, and fails the class if
 * it leaves lock keys behind on any of them. A master a test killed is started again (empty) after that test.
 *
 * <pre>{@code
 * @RegisterExtension
 * static RedLockMastersExtension masters = new RedLockMastersExtension(5);
 * }</pre>
 */
public final class RedLockMastersExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

	private final int count;

	private final List<RedisProcess> servers = new ArrayList<>();

	public RedLockMastersExtension(int count) {
		this.count = count;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		for (int i = 0; i < this.count; i++) {
			this.servers.add(RedisServers.startProcess());
		}
	}

	@Override
	public void afterEach(ExtensionContext context) {
		for (RedisProcess server : this.servers) {
			if (!server.isAlive()) {
				server.restart();
			}
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		try {
			List<String> left = new ArrayList<>();
			for (int i = 0; i < this.servers.size(); i++) {
				try (RespClient client = this.servers.get(i).client()) {
					for (String key : client.lockKeys("distlock*")) {
						left.add("master #" + (i + 1) + ": " + key);
					}
				}
			}
			if (!left.isEmpty()) {
				throw new AssertionError("Lock keys left in Redis after " + context.getDisplayName() + ": " + left);
			}
		}
		finally {
			this.servers.forEach(RedisProcess::close);
		}
	}

	public List<RedisProcess> servers() {
		return this.servers;
	}

	public RedisProcess get(int index) {
		return this.servers.get(index);
	}

	public int size() {
		return this.servers.size();
	}

}
