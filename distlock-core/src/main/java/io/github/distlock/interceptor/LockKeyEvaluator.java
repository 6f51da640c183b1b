package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.lang.Contract;
import org.springframework.util.StringUtils;

import io.github.distlock.InvalidLockKeyException;
import io.github.distlock.engine.LockRequest;

/**
 * Evaluates a lock's key expression for one call. Arguments are bound lazily by name and as {@code #p0}/{@code #a0};
 * {@code #root} offers the method, target and arguments; {@code @name} refers to a bean.
 * <p>
 * A key that merely refers to one argument (see {@link KeyArgument}) is that argument, taken without SpEL: the
 * common case costs no evaluation context.
 */
public class LockKeyEvaluator {

	private final ParameterNameDiscoverer parameterNames = new CachedParameterNames(
			new DefaultParameterNameDiscoverer());

	private final @Nullable BeanFactoryResolver beanResolver;

	/** @param beanFactory resolves {@code @bean} references, or null to allow none */
	public LockKeyEvaluator(@Nullable BeanFactory beanFactory) {
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * @return the key as a non-blank string
	 * @throws InvalidLockKeyException if the expression yields null, a blank string or a string longer than
	 * {@link LockRequest#MAX_KEY_LENGTH}
	 */
	public String evaluate(LockOperation operation, @Nullable Object target, @Nullable Object[] args) {
		return key(operation, value(operation, target, args));
	}

	/** What the key expression yields for the call: one key, or a collection or array of them. */
	@Nullable Object value(LockOperation operation, @Nullable Object target, @Nullable Object[] args) {
		return isPlainArgument(operation, args) ? args[operation.keyArgument()]
				: evaluateExpression(operation, target, args);
	}

	/**
	 * Whether the value names several locks: a collection, or an array of objects. Not any {@link Iterable}: a
	 * {@code Path} is one, and is one key, not its name elements; not an array of primitives, such as a digest's bytes.
	 */
	@Contract("null -> false")
	static boolean isMany(@Nullable Object value) {
		return value instanceof Collection<?> || value instanceof Object[];
	}

	/**
	 * The keys of a value that names several locks, each checked as a single key is, without repeats, in the one
	 * order every caller uses (by {@link String#compareTo}), so that two calls naming the same keys in different
	 * orders never each hold one the other waits for.
	 * @throws InvalidLockKeyException if it names no key, or one element is null, blank or too long
	 */
	static List<String> keys(LockOperation operation, Object value) {
		TreeSet<String> keys = new TreeSet<>();
		collect(operation, value, keys);
		if (keys.isEmpty()) {
			throw InvalidLockKeyException.badElement(operation.methodId(), operation.keyText(),
					"evaluated to an empty " + ((value instanceof Object[]) ? "array" : "collection"));
		}
		return List.copyOf(keys);
	}

	/** Adds the keys of a collection or array, and of the collections and arrays in it ({@code keys = {...}}). */
	private static void collect(LockOperation operation, Object value, TreeSet<String> keys) {
		Iterable<?> elements = (value instanceof Object[] array) ? Arrays.asList(array) : (Collection<?>) value;
		elements.forEach((element) -> add(operation, element, keys));
	}

	private static void add(LockOperation operation, @Nullable Object element, TreeSet<String> keys) {
		if (isMany(element)) {
			collect(operation, element, keys);
		}
		else {
			keys.add(element(operation, element));
		}
	}

	private static String element(LockOperation operation, @Nullable Object element) {
		String key = (element != null) ? element.toString() : null;
		if (!StringUtils.hasText(key)) {
			throw InvalidLockKeyException.badElement(operation.methodId(), operation.keyText(),
					"evaluated to a collection holding " + ((element == null) ? "null" : "a blank string"));
		}
		if (key.length() > LockRequest.MAX_KEY_LENGTH) {
			throw InvalidLockKeyException.tooLong(operation.methodId(), operation.keyText(), key.length());
		}
		return key;
	}

	/** One key, checked. */
	static String key(LockOperation operation, @Nullable Object value) {
		String key = (value != null) ? value.toString() : null;
		if (!StringUtils.hasText(key)) {
			throw new InvalidLockKeyException(operation.methodId(), operation.keyText(), value);
		}
		if (key.length() > LockRequest.MAX_KEY_LENGTH) {
			throw InvalidLockKeyException.tooLong(operation.methodId(), operation.keyText(), key.length());
		}
		return key;
	}

	/**
	 * Whether the key is an argument as the call passed it. With more or fewer arguments than parameters SpEL would
	 * gather the last ones as varargs or bind nulls, so the expression decides then.
	 */
	private static boolean isPlainArgument(LockOperation operation, @Nullable Object @Nullable [] args) {
		return operation.keyArgument() != KeyArgument.NONE && args != null
				&& args.length == operation.method().getParameterCount();
	}

	private @Nullable Object evaluateExpression(LockOperation operation, @Nullable Object target,
			@Nullable Object[] args) {
		Method method = operation.method();
		LockExpressionRoot root = new LockExpressionRoot(method, target, args);
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				this.parameterNames);
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		return operation.key().getValue(context);
	}

	/**
	 * What {@code #root} offers to a key expression.
	 *
	 * @param method the locked method
	 * @param target the bean the method is called on
	 * @param args the call's arguments
	 */
	public record LockExpressionRoot(Method method, @Nullable Object target, @Nullable Object[] args) {

		public Method getMethod() {
			return this.method;
		}

		public String getMethodName() {
			return this.method.getName();
		}

		public @Nullable Object getTarget() {
			return this.target;
		}

		public @Nullable Object[] getArgs() {
			return this.args;
		}

	}

}
