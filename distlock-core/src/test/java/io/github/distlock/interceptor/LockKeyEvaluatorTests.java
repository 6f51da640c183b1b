package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;

import io.github.distlock.DistributedLock;
import io.github.distlock.InvalidLockKeyException;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.OnLost;
import io.github.distlock.execution.LockDefaults;
import io.github.distlock.interceptor.LockKeyEvaluator.LockExpressionRoot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A key that is just one argument ({@code #id}, {@code #p1}, {@code #a0}) is taken without SpEL, with the outcome
 * SpEL would give; every other key still goes through SpEL.
 */
class LockKeyEvaluatorTests {

	private final LockOperationSource operations = new LockOperationSource(
			new LockDefaults(Duration.ofSeconds(30), Duration.ZERO, null, OnLost.ROLLBACK), null);

	private final LockKeyEvaluator evaluator = new LockKeyEvaluator(null);

	private final Orders target = new Orders();

	@Test
	void aParameterNameIsThatArgument() {
		LockOperation operation = operation("byName");
		assertThat(operation.keyArgument()).isEqualTo(1);
		assertThat(evaluate(operation, "ignored", 42)).isEqualTo("42");
	}

	@Test
	void pAndAIndexesAreThoseArguments() {
		LockOperation p1 = operation("byP1");
		LockOperation a0 = operation("byA0");
		assertThat(p1.keyArgument()).isEqualTo(1);
		assertThat(a0.keyArgument()).isEqualTo(0);
		assertThat(evaluate(p1, "first", new Order("o-7"))).isEqualTo("Order o-7");
		assertThat(evaluate(a0, "first", new Order("o-7"))).isEqualTo("first");
	}

	@Test
	void aNullArgumentFailsNamingTheMethod() {
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> evaluate(operation("byName"), "ignored", null))
			.withMessageContaining("Orders#byName")
			.withMessageContaining("evaluated to null")
			.satisfies((ex) -> assertThat(ex.getMethod()).isEqualTo("Orders#byName"))
			.satisfies((ex) -> assertThat(ex.getExpression()).isEqualTo("#id"));
	}

	@Test
	void aBlankArgumentFailsNamingTheMethod() {
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> evaluate(operation("byA0"), " \t", null))
			.withMessageContaining("Orders#byA0")
			.withMessageContaining("evaluated to a blank string");
	}

	@Test
	void aPropertyPathGoesThroughSpel() {
		LockOperation operation = operation("byProperty");
		assertThat(operation.keyArgument()).isEqualTo(KeyArgument.NONE);
		assertThat(evaluate(operation, new Order("o-1"))).isEqualTo("o-1");
	}

	@Test
	void aComposedKeyGoesThroughSpel() {
		LockOperation operation = operation("composed");
		assertThat(operation.keyArgument()).isEqualTo(KeyArgument.NONE);
		assertThat(evaluate(operation, 42)).isEqualTo("k-42");
	}

	/** SpEL would bind null and every call would fail: the declaration fails instead ({@link KeyVariablesTests}). */
	@Test
	void anUnknownNameFailsWhenDeclared() {
		assertThatExceptionOfType(LockDefinitionException.class).isThrownBy(() -> operation("unknown"))
			.withMessageContaining("Orders#unknown");
	}

	@Test
	void anIndexBeyondTheParametersFailsWhenDeclared() {
		assertThatExceptionOfType(LockDefinitionException.class).isThrownBy(() -> operation("beyond"))
			.withMessageContaining("Orders#beyond");
	}

	@Test
	void aParameterNamedLikeAnIndexLosesItToTheLaterArgumentAsInSpel() {
		// SpEL binds p0, a0, "p1" for the first argument, then p1 again for the second: the later binding wins.
		LockOperation operation = operation("clash");
		assertThat(operation.keyArgument()).isEqualTo(1);
		assertThat(evaluate(operation, "first", "second")).isEqualTo("second").isEqualTo(spel(operation, "first",
				"second"));
	}

	@Test
	void rootIsTheEvaluationRootEvenWithAParameterOfThatName() {
		LockOperation operation = operation("rooted");
		assertThat(operation.keyArgument()).isEqualTo(KeyArgument.NONE);
		assertThat(evaluate(operation, "parameter")).startsWith("LockExpressionRoot[");
	}

	@Test
	void fewerArgumentsThanParametersGoThroughSpel() {
		// Not reachable through a proxy, but the shortcut must not index past the arguments.
		LockOperation operation = operation("byName");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> this.evaluator.evaluate(operation, this.target, new Object[] { "only" }));
	}

	@Test
	void everyShortcutAgreesWithSpel() {
		Object[][] calls = { { "x", 1 }, { "x", null }, { "", 2 }, { " ", new Order("o") }, { "y", "  " } };
		for (String methodName : new String[] { "byName", "byP1", "byA0", "clash" }) {
			LockOperation operation = operation(methodName);
			assertThat(operation.keyArgument()).as(methodName).isNotEqualTo(KeyArgument.NONE);
			for (Object[] args : calls) {
				Object expected = spel(operation, args);
				String described = methodName + Arrays.toString(args);
				if (expected == null || expected.toString().isBlank()) {
					assertThatExceptionOfType(InvalidLockKeyException.class).as(described)
						.isThrownBy(() -> evaluate(operation, args));
				}
				else {
					assertThat(evaluate(operation, args)).as(described).isEqualTo(expected.toString());
				}
			}
		}
	}

	private LockOperation operation(String methodName) {
		Method method = Arrays.stream(Orders.class.getMethods())
			.filter((candidate) -> candidate.getName().equals(methodName))
			.findFirst()
			.orElseThrow();
		LockOperation operation = this.operations.getOperation(method, Orders.class);
		assertThat(operation).as(methodName).isNotNull();
		return operation;
	}

	private String evaluate(LockOperation operation, Object... args) {
		return this.evaluator.evaluate(operation, this.target, args);
	}

	/** What plain SpEL makes of the key, as the evaluator did before the shortcut. */
	private Object spel(LockOperation operation, Object... args) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
				new LockExpressionRoot(operation.method(), this.target, args), operation.method(), args,
				new DefaultParameterNameDiscoverer());
		return operation.key().getValue(context);
	}

	public record Order(String id) {

		@Override
		public String toString() {
			return "Order " + this.id;
		}

	}

	public static class Orders {

		@DistributedLock(key = "#id")
		public void byName(String ignored, Object id) {
		}

		@DistributedLock(key = "#p1")
		public void byP1(String first, Object second) {
		}

		@DistributedLock(key = "#a0")
		public void byA0(String first, Object second) {
		}

		@DistributedLock(key = "#order.id")
		public void byProperty(Order order) {
		}

		@DistributedLock(key = "'k-' + #id")
		public void composed(int id) {
		}

		@DistributedLock(key = "#nope")
		public void unknown(String id) {
		}

		@DistributedLock(key = "#p1")
		public void beyond(String id) {
		}

		@DistributedLock(key = "#p1")
		public void clash(String p1, String second) {
		}

		@DistributedLock(key = "#root")
		public void rooted(String root) {
		}

	}

}
