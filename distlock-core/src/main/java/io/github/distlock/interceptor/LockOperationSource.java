package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.AdviceMode;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.lang.Contract;
import org.springframework.scheduling.annotation.Async;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.LockMode;
import io.github.distlock.OnLost;
import io.github.distlock.engine.Leases;
import io.github.distlock.execution.LockDefaults;

/**
 * Finds and parses {@link DistributedLock} declarations, once per method and target class: on the method or
 * through a composed annotation, with the defaults of the class's {@link io.github.distlock.DistributedLockConfig}
 * (see {@link LockDeclaration}), and with the fallback method resolved ({@link LockFallbackResolver}).
 * <p>
 * Parsing resolves {@code ${...}} placeholders, compiles the key expression and checks every duration, so a bad
 * declaration fails when it is first seen (at start-up, through {@link LockDefinitionValidator}) rather than on an
 * unlucky call. Methods without the annotation are remembered too, so each method is introspected once.
 */
public class LockOperationSource {

	private static final String PUBLISHER = "org.reactivestreams.Publisher";

	private static final String KOTLIN_FLOW = "kotlinx.coroutines.flow.Flow";

	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LockOperationSource.class.getClassLoader());

	private final DeclarationCache<LockOperation> declarations = new DeclarationCache<>(this::parse);

	private final ExpressionParser parser = new SpelExpressionParser(
			new SpelParserConfiguration(SpelCompilerMode.MIXED, LockOperationSource.class.getClassLoader()));

	/** Discovers names as {@link LockKeyEvaluator} does, so an argument found by name is the one SpEL would bind. */
	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final LockDefaults defaults;

	private final @Nullable StringValueResolver placeholders;

	private final AdviceMode mode;

	/**
	 * For locks applied by Spring's proxies, which refuse a lock on a method no proxy can intercept.
	 * @param defaults values for attributes left empty
	 * @param placeholders resolves {@code ${...}} in attributes, or null to take them literally
	 */
	public LockOperationSource(LockDefaults defaults, @Nullable StringValueResolver placeholders) {
		this(defaults, placeholders, AdviceMode.PROXY);
	}

	/**
	 * @param defaults values for attributes left empty
	 * @param placeholders resolves {@code ${...}} in attributes, or null to take them literally
	 * @param mode how the locks are applied: by proxies, which cannot lock a private, final or static method, or by
	 * AspectJ's weaving, which locks every annotated method
	 */
	public LockOperationSource(LockDefaults defaults, @Nullable StringValueResolver placeholders, AdviceMode mode) {
		this.defaults = defaults;
		this.placeholders = placeholders;
		this.mode = mode;
	}

	/**
	 * The lock declared on a method as seen through a target class, or null when the method is not locked.
	 * @throws LockDefinitionException if the declaration is invalid
	 */
	public @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
		return this.declarations.get(method, targetClass);
	}

	/** Every lock declaration parsed so far: at the end of start-up, those of every bean created. */
	public List<LockOperation> parsedOperations() {
		return this.declarations.declarations();
	}

	private @Nullable LockOperation parse(Method method, @Nullable Class<?> targetClass) {
		if (isSuspendBody(method)) {
			return null;
		}
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		Class<?> owner = (targetClass != null) ? targetClass : method.getDeclaringClass();
		String methodId = owner.getSimpleName() + "#" + method.getName();
		LockDeclaration lock = LockDeclaration.find(specific, method, methodId);
		if (lock == null) {
			return null;
		}
		if (this.mode == AdviceMode.PROXY) {
			checkInterceptable(specific, methodId);
		}
		LockedCall call = lockedCall(specific, methodId);
		String name = resolve(methodId, lock.describe("name"), lock.name());
		if (!StringUtils.hasText(name)) {
			name = owner.getSimpleName() + "." + method.getName();
		}
		String keyText = keyText(methodId, lock);
		Expression key;
		try {
			key = this.parser.parseExpression(keyText);
		}
		catch (ParseException ex) {
			throw new LockDefinitionException(methodId, "key \"" + keyText + "\" is not a valid SpEL expression: "
					+ ex.getMessage(), ex);
		}
		KeyVariables.check(key, keyText, specific, this.parameterNames, methodId);
		Duration lease = duration(methodId, lock.describe("lease"), lock.lease(), this.defaults.lease(),
				Leases.SHORTEST);
		Duration waitTime = duration(methodId, lock.describe("waitTime"), lock.waitTime(), this.defaults.waitTime(),
				Duration.ZERO);
		Duration maxLease = duration(methodId, lock.describe("maxLease"), lock.maxLease(), this.defaults.maxLease(),
				Leases.SHORTEST);
		OnLost onLost = (lock.onLost() != OnLost.DEFAULT) ? lock.onLost() : this.defaults.onLost();
		int keyArgument = KeyArgument.indexOf(key, specific, this.parameterNames);
		int permits = permits(methodId, lock);
		return new LockOperation(methodId, specific, name, keyText, key, keyArgument, lease, waitTime,
				lock.autoRenew(), maxLease, onLost, call, contention(lock, specific, owner, methodId), lock.mode(),
				permits);
	}

	/** How many permits the lock has: zero for a plain lock, else a positive number, with the exclusive mode. */
	private int permits(String methodId, LockDeclaration lock) {
		String text = resolve(methodId, "permits", lock.permits());
		if (!StringUtils.hasText(text)) {
			return 0;
		}
		int permits;
		try {
			permits = Integer.parseInt(text.trim());
		}
		catch (NumberFormatException ex) {
			throw new LockDefinitionException(methodId, "permits \"" + text + "\" is not a whole number", ex);
		}
		if (permits < 1) {
			throw new LockDefinitionException(methodId, "permits \"" + text + "\" must be at least 1", null);
		}
		if (lock.mode() != LockMode.EXCLUSIVE) {
			throw new LockDefinitionException(methodId, "permits and mode = " + lock.mode() + " do not go together: "
					+ "permits are a concurrency limit of their own, not a side of a read/write lock", null);
		}
		return permits;
	}

	/** The key expression: {@code key}, or the {@code keys} as one SpEL list, whose value then names several locks. */
	private String keyText(String methodId, LockDeclaration lock) {
		String key = resolve(methodId, "key", lock.key());
		String[] keys = lock.keys();
		if (keys.length == 0) {
			if (!StringUtils.hasText(key)) {
				throw new LockDefinitionException(methodId, "key must not be empty", null);
			}
			return key;
		}
		if (StringUtils.hasText(key)) {
			throw new LockDefinitionException(methodId, "declare either key or keys, not both", null);
		}
		List<String> parts = new ArrayList<>();
		for (String one : keys) {
			String part = resolve(methodId, "keys", one);
			if (!StringUtils.hasText(part)) {
				throw new LockDefinitionException(methodId, "keys must not hold an empty expression", null);
			}
			parts.add(part.strip());
		}
		return "{" + String.join(", ", parts) + "}";
	}

	private ContentionPolicy contention(LockDeclaration lock, Method method, Class<?> owner, String methodId) {
		String fallbackName = resolve(methodId, "fallback", lock.fallback());
		if (StringUtils.hasText(fallbackName) && KotlinDetector.isSuspendingFunction(method)) {
			throw new LockDefinitionException(methodId, "a suspend function cannot have a fallback (it would be "
					+ "called outside its coroutine); catch LockAcquisitionException around the call instead", null);
		}
		LockFallback fallback = StringUtils.hasText(fallbackName)
				? LockFallbackResolver.resolve(method, owner, fallbackName.trim(), methodId) : null;
		if (lock.reentrant() && fallback == null) {
			return ContentionPolicy.DEFAULT;
		}
		return new ContentionPolicy(lock.reentrant(), fallback);
	}

	/**
	 * The static body Kotlin compiles an open suspend function into ({@code name$suspendImpl}), which carries a copy of
	 * its annotations: the function itself is the one intercepted, its body is no lock declaration of its own.
	 */
	static boolean isSuspendBody(Method method) {
		return Modifier.isStatic(method.getModifiers()) && method.getName().endsWith("$suspendImpl");
	}

	private static void checkInterceptable(Method method, String methodId) {
		String problem = notInterceptable(method);
		if (problem != null) {
			throw new LockDefinitionException(methodId, "the method is " + problem
					+ ", so no proxy can intercept it and it would run unlocked; make it public and overridable, or "
					+ "lock it with AspectJ (distlock.aop.mode=aspectj and distlock-aspectj)",
					null);
		}
	}

	/** Why no proxy can intercept the method ("private", "static", "final"), or null when one can. */
	static @Nullable String notInterceptable(Method method) {
		int modifiers = method.getModifiers();
		return Modifier.isPrivate(modifiers) ? "private" : Modifier.isStatic(modifiers) ? "static"
				: Modifier.isFinal(modifiers) ? "final" : null;
	}

	/**
	 * How the method is run for its return type. A stage holds the lock until it completes; other results whose
	 * work outlives the call are refused, since the lock would be released before that work ends.
	 */
	static LockedCall lockedCall(Method method, String methodId) {
		Class<?> type = method.getReturnType();
		if (runsAsync(method)) {
			return SynchronousLockedCall.INSTANCE;
		}
		if (type == CompletionStage.class || type == CompletableFuture.class) {
			return CompletionStageLockedCall.INSTANCE;
		}
		if (KotlinDetector.isSuspendingFunction(method)) {
			if (!REACTOR_PRESENT) {
				throw new LockDefinitionException(methodId, "the method is a Kotlin suspend function, which Spring "
						+ "intercepts through Reactor, and Reactor is not on the class path; add "
						+ "org.jetbrains.kotlinx:kotlinx-coroutines-reactor", null);
			}
			return ReactiveLockedCall.forSuspendingFunction(method);
		}
		LockedCall reactive = REACTOR_PRESENT ? ReactiveLockedCall.forReturnType(type) : null;
		if (reactive != null) {
			return reactive;
		}
		String asynchronous = asynchronousReturnType(type);
		if (asynchronous != null) {
			throw new LockDefinitionException(methodId, "the method returns " + asynchronous + ": the lock would be "
					+ "released when the method returns, before the work it started ends; locked methods may return "
					+ "CompletionStage or CompletableFuture (held until it completes) and, with Reactor on the class "
					+ "path, Mono or Flux (held per subscription until it terminates); not a Future without "
					+ "completion callbacks, another CompletionStage type or another Publisher, so return one of "
					+ "those (or lock inside the asynchronous work)", null);
		}
		return SynchronousLockedCall.INSTANCE;
	}

	/**
	 * Whether Spring's {@code @Async} runs the method: its advice applies before the lock's, so the lock is taken on
	 * the executor's thread around the method body, and the result the body returns is done work.
	 */
	static boolean runsAsync(Method method) {
		return AnnotatedElementUtils.hasAnnotation(method, Async.class)
				|| AnnotatedElementUtils.hasAnnotation(method.getDeclaringClass(), Async.class);
	}

	/** The name of an asynchronous result type, whose work outlives the call, or null for a plain result. */
	private static @Nullable String asynchronousReturnType(Class<?> type) {
		if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)) {
			return type.getSimpleName();
		}
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			if (isPublisher(candidate)) {
				return type.getSimpleName() + " (a reactive Publisher)";
			}
			if (implementsByName(candidate, KOTLIN_FLOW)) {
				return type.getSimpleName() + " (a cold Kotlin Flow, collected after the call; make the function "
						+ "suspend and collect it inside, or return Flux)";
			}
		}
		return null;
	}

	/** Whether the type is or implements the named interface, checked by name: the library is optional. */
	private static boolean implementsByName(Class<?> type, String name) {
		if (type.getName().equals(name)) {
			return true;
		}
		for (Class<?> implemented : type.getInterfaces()) {
			if (implementsByName(implemented, name)) {
				return true;
			}
		}
		return false;
	}

	/** Whether the type is or implements Reactive Streams' Publisher, checked by name: Reactor is optional. */
	private static boolean isPublisher(Class<?> type) {
		if (type.getName().equals(PUBLISHER)) {
			return true;
		}
		for (Class<?> implemented : type.getInterfaces()) {
			if (isPublisher(implemented)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * @param minimum the shortest duration allowed: zero for a wait, {@link Leases#SHORTEST} for a lease
	 */
	@Contract("_, _, _, !null, _ -> !null")
	private @Nullable Duration duration(String methodId, String attribute, String text, @Nullable Duration fallback,
			Duration minimum) {
		String resolved = resolve(methodId, attribute, text);
		if (!StringUtils.hasText(resolved)) {
			if (fallback != null && fallback.compareTo(minimum) < 0) {
				throw new LockDefinitionException(methodId, attribute + " defaults to " + fallback + " (from "
						+ "distlock.* properties), " + tooShort(minimum), null);
			}
			return fallback;
		}
		Duration duration;
		try {
			duration = DurationFormatterUtils.detectAndParse(resolved.trim());
		}
		catch (RuntimeException ex) {
			throw new LockDefinitionException(methodId, attribute + " \"" + resolved
					+ "\" is not a duration; write it like \"500ms\", \"10s\", \"2m\" or \"PT10S\"", ex);
		}
		if (duration.compareTo(minimum) < 0) {
			throw new LockDefinitionException(methodId, attribute + " \"" + resolved + "\" " + tooShort(minimum), null);
		}
		return duration;
	}

	private static String tooShort(Duration minimum) {
		return minimum.isZero() ? "must be zero or positive"
				: "must be at least 1ms: Redis keeps a lease in whole milliseconds";
	}

	private @Nullable String resolve(String methodId, String attribute, String text) {
		if (this.placeholders == null || !StringUtils.hasText(text)) {
			return text;
		}
		try {
			return this.placeholders.resolveStringValue(text);
		}
		catch (IllegalArgumentException ex) {
			throw new LockDefinitionException(methodId, attribute + " \"" + text + "\" has a placeholder that cannot "
					+ "be resolved: " + ex.getMessage(), ex);
		}
	}

}
