package io.github.distlock.testing;

import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.TestContextManager;

import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.testing.redis.EmbeddedRedisServer;
import io.github.distlock.testing.redis.RedisBinary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The life of a test context with {@link AutoConfigureDistLock}, driven as JUnit's Spring extension drives it: its
 * server stops with it, taken locks go at the end of each test method, {@link DistLockAssert} knows which context to
 * ask, and a context that would have to use another Redis, or has no redis-server to run, fails to start.
 * <p>
 * The test classes below are run by hand here, never by the build's own scan (nested classes are left out of it).
 */
class AutoConfigureDistLockContextTests {

	/** The port of a Redis other than the test context's own, for {@link OwnClient}. */
	static volatile int otherRedisPort;

	@Test
	void theServerStopsWhenTheContextCloses() throws Exception {
		TestContextManager manager = new TestContextManager(Plain.class);
		manager.prepareTestInstance(new Plain());
		EmbeddedRedisServer server = manager.getTestContext()
			.getApplicationContext()
			.getBean(EmbeddedRedisServer.class);
		ProcessHandle process = ProcessHandle.of(server.pid()).orElseThrow();
		assertThat(process.parent().map(ProcessHandle::pid)).contains(ProcessHandle.current().pid());

		manager.getTestContext().markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);

		assertThat(process.isAlive()).isFalse();
		assertThatExceptionOfType(UncheckedIOException.class)
			.isThrownBy(() -> new RespClient(server.host(), server.port()).close());
	}

	@Test
	void aTakenLockIsReleasedWhenTheTestMethodEndsAndDistLockAssertWorksOnlyMeanwhile() throws Exception {
		TestContextManager manager = new TestContextManager(Plain.class);
		Plain test = new Plain();
		Method method = Plain.class.getDeclaredMethod("test");
		manager.prepareTestInstance(test);
		DistLocks locks = manager.getTestContext().getApplicationContext().getBean(DistLocks.class);
		try {
			manager.beforeTestMethod(test, method);
			TakenLock taken = locks.take("job", "left-over");
			assertThat(DistLockAssert.assertHeld("job", "left-over").token()).isEqualTo(taken.token());
			manager.afterTestMethod(test, method, null);

			assertThat(locks.isHeld("job", "left-over")).isFalse();
			assertThatIllegalStateException().isThrownBy(() -> DistLockAssert.assertNotHeld("job", "left-over"))
				.withMessageContaining("DistLockAssert works while a test method of a test class annotated with "
						+ "@AutoConfigureDistLock runs");
		}
		finally {
			manager.getTestContext().markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
		}
	}

	@Test
	void distLockAssertRefusesToGuessBetweenTwoContexts() throws Exception {
		TestContextManager first = new TestContextManager(Plain.class);
		TestContextManager second = new TestContextManager(OtherPlain.class);
		Plain firstTest = new Plain();
		OtherPlain secondTest = new OtherPlain();
		Method firstMethod = Plain.class.getDeclaredMethod("test");
		Method secondMethod = OtherPlain.class.getDeclaredMethod("test");
		first.prepareTestInstance(firstTest);
		second.prepareTestInstance(secondTest);
		try {
			first.beforeTestMethod(firstTest, firstMethod);
			second.beforeTestMethod(secondTest, secondMethod);
			assertThatIllegalStateException().isThrownBy(() -> DistLockAssert.assertNotHeld("job", "x"))
				.withMessageContaining(
						"Test methods of 2 application contexts with @AutoConfigureDistLock run at once");
			second.afterTestMethod(secondTest, secondMethod, null);
			DistLockAssert.assertNotHeld("job", "x");
			first.afterTestMethod(firstTest, firstMethod, null);
		}
		finally {
			first.getTestContext().markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
			second.getTestContext().markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
		}
	}

	@Test
	void withoutARedisServerToRunTheContextFailsSayingWhatToInstall() {
		List<Long> before = childProcesses();
		Throwable failure = contextFailure(MissingBinary.class);
		assertThat(messages(failure)).anySatisfy((message) -> assertThat(message)
			.startsWith("@AutoConfigureDistLock could not start a redis-server for this test context, and uses no "
					+ "other Redis instead: distlock.test.redis-server names /nonexistent/redis-server, which is not "
					+ "an executable file. Install Redis so that redis-server is on the PATH"));
		assertThat(childProcesses()).isEqualTo(before);
	}

	@Test
	void aRedissonClientOfTheApplicationThatConnectsElsewhereFailsTheContext() {
		EmbeddedRedisServer other = EmbeddedRedisServer.start(RedisBinary.locate(System.getenv("PATH")), 0);
		try {
			otherRedisPort = other.port();
			List<Long> before = childProcesses();
			Throwable failure = contextFailure(OwnClient.class);
			assertThat(messages(failure)).anySatisfy((message) -> assertThat(message)
				.startsWith("RedissonClient bean 'ownRedisson' connects to another Redis (process " + other.pid()
						+ ", port " + other.port() + ") than this test context's own redis-server"));
			// The context's own server stopped with the failed context, and nothing was locked in the other Redis.
			assertThat(childProcesses()).isEqualTo(before);
			try (RespClient raw = new RespClient(other.host(), other.port())) {
				assertThat(raw.keys("*")).isEmpty();
			}
		}
		finally {
			other.stop();
		}
	}

	private static Throwable contextFailure(Class<?> testClass) {
		TestContextManager manager = new TestContextManager(testClass);
		try {
			manager.prepareTestInstance(newInstance(testClass));
		}
		catch (Exception ex) {
			return ex;
		}
		throw new AssertionError(testClass.getSimpleName() + "'s context started");
	}

	private static Object newInstance(Class<?> testClass) throws ReflectiveOperationException {
		return testClass.getDeclaredConstructor().newInstance();
	}

	private static List<String> messages(Throwable failure) {
		List<String> messages = new ArrayList<>();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			messages.add(String.valueOf(cause.getMessage()));
		}
		return messages;
	}

	/** The processes this JVM started that still run (by pid: Debian's redis-server links to another name). */
	private static List<Long> childProcesses() {
		return ProcessHandle.current()
			.children()
			.filter(ProcessHandle::isAlive)
			.map(ProcessHandle::pid)
			.sorted()
			.toList();
	}

	@SpringBootTest(classes = LockingApplication.class)
	@AutoConfigureDistLock
	static class Plain {

		void test() {
		}

	}

	/** The same as {@link Plain} with another setting, so that it gets a context of its own. */
	@SpringBootTest(classes = LockingApplication.class, properties = "distlock.lease=20s")
	@AutoConfigureDistLock
	static class OtherPlain {

		void test() {
		}

	}

	@SpringBootTest(classes = LockingApplication.class,
			properties = "distlock.test.redis-server=/nonexistent/redis-server")
	@AutoConfigureDistLock
	static class MissingBinary {

	}

	@SpringBootTest(classes = { LockingApplication.class, OwnClient.Client.class })
	@AutoConfigureDistLock
	static class OwnClient {

		@Configuration(proxyBeanMethods = false)
		static class Client {

			@Bean(destroyMethod = "shutdown")
			RedissonClient ownRedisson() {
				Config config = new Config();
				config.useSingleServer().setAddress("redis://127.0.0.1:" + otherRedisPort);
				return Redisson.create(config);
			}

		}

	}

}
