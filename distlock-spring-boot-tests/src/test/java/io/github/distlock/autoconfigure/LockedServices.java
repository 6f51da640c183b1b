package io.github.distlock.autoconfigure;

import java.util.concurrent.Callable;
import java.util.function.Supplier;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.DistributedLock;

/**
 * Beans with locked methods, shared by the Spring-level tests. Each runs a callback inside the lock, so a test can
 * look at Redis while the lock is held.
 */
public final class LockedServices {

	private LockedServices() {
	}

	/** An application whose one locked bean is an {@link OrderService}. */
	@Configuration(proxyBeanMethods = false)
	public static class OrderServiceApplication {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

	}

	public record Order(String id, Customer customer) {
	}

	public record Customer(String name) {
	}

	public static class OrderService {

		@DistributedLock(key = "#order.id")
		public <T> T byName(Order order, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#p0.customer.name + ':' + #a0.id", name = "orders")
		public <T> T byIndexAndConcatenation(Order order, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#root.methodName + '-' + #root.args.length", name = "root")
		public <T> T byRoot(Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "@keySource.get()", name = "bean")
		public <T> T byBean(Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#id", name = "shared")
		public <T> T shared(String id, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#id", name = "shared", waitTime = "0s")
		public <T> T sharedNoWait(String id, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#id", name = "other")
		public <T> T otherName(String id, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#id", name = "${test.name:shared}", lease = "${test.lease:2s}",
				waitTime = "${test.wait:1s}")
		public <T> T placeholders(String id, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#id")
		public <T> T defaults(String id, Callable<T> work) throws Exception {
			return work.call();
		}

		public <T> T notLocked(Callable<T> work) throws Exception {
			return work.call();
		}

	}

	/** A bean the {@code @keySource} expression refers to. */
	public static class KeySource implements Supplier<String> {

		@Override
		public String get() {
			return "from-bean";
		}

	}

}
