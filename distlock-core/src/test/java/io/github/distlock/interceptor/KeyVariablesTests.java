package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.OnLost;
import io.github.distlock.execution.LockDefaults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A key that refers to an argument that does not exist fails when the lock is declared, naming the method, the key
 * and the fix, instead of failing every call on a key that evaluated to null.
 */
class KeyVariablesTests {

	private final LockOperationSource operations = new LockOperationSource(
			new LockDefaults(Duration.ofSeconds(30), Duration.ZERO, null, OnLost.ROLLBACK), null);

	@Test
	void aNameThatIsNoParameterFailsNamingTheParameters() {
		assertThatExceptionOfType(LockDefinitionException.class).isThrownBy(() -> operation(Orders.class, "typo"))
			.withMessageContaining("Orders#typo")
			.withMessageContaining("#ordr")
			.withMessageContaining("its parameters: order, amount");
	}

	@Test
	void aPositionBeyondTheParametersFails() {
		assertThatExceptionOfType(LockDefinitionException.class).isThrownBy(() -> operation(Orders.class, "beyond"))
			.withMessageContaining("Orders#beyond")
			.withMessageContaining("#p2")
			.withMessageContaining("has 2 parameter(s)");
	}

	@Test
	void namesPositionsRootAndThisAnywhereInTheKeyAreAccepted() {
		assertThat(operation(Orders.class, "fine")).isNotNull();
	}

	@Test
	void aNameInAClassCompiledWithoutParameterNamesFailsSayingHowToFixIt(@TempDir Path dir) throws Exception {
		Path source = dir.resolve("Payments.java");
		Files.writeString(source, """
				public class Payments {
					@io.github.distlock.DistributedLock(key = "#orderId")
					public void pay(String orderId) {
					}
					@io.github.distlock.DistributedLock(key = "#p0")
					public void refund(String orderId) {
					}
				}
				""");
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		// No -parameters: the class file keeps no parameter names, as in a build without Spring Boot's parent POM.
		int exit = javac.run(null, null, null, "-classpath", System.getProperty("java.class.path"), "-d",
				dir.toString(), source.toString());
		assertThat(exit).as("javac").isZero();
		try (URLClassLoader loader = new URLClassLoader(new URL[] { dir.toUri().toURL() },
				getClass().getClassLoader())) {
			Class<?> payments = loader.loadClass("Payments");
			assertThatExceptionOfType(LockDefinitionException.class).isThrownBy(() -> operation(payments, "pay"))
				.withMessageContaining("Payments#pay")
				.withMessageContaining("#orderId")
				.withMessageContaining("-parameters")
				.withMessageContaining("#p0");
			assertThat(operation(payments, "refund")).as("by position").isNotNull();
		}
	}

	private LockOperation operation(Class<?> type, String name) {
		Method method = List.of(type.getMethods()).stream()
			.filter((candidate) -> candidate.getName().equals(name))
			.findFirst()
			.orElseThrow();
		return this.operations.getOperation(method, type);
	}

	static class Orders {

		@DistributedLock(key = "#ordr")
		public void typo(String order, int amount) {
		}

		@DistributedLock(key = "#p2")
		public void beyond(String order, int amount) {
		}

		@DistributedLock(key = "#order + ':' + #p1 + ':' + #a0 + ':' + #root.methodName + ':' + {1, 2}.?[#this > 1]")
		public void fine(String order, int amount) {
		}

	}

}
