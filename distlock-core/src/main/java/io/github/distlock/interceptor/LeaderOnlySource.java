package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

import io.github.distlock.LockDefinitionException;
import io.github.distlock.OnLost;
import io.github.distlock.leader.LeaderOnly;

/**
 * Finds and checks {@link LeaderOnly} on methods, once per method and target class: a declaration that cannot work
 * fails as the bean is created, naming {@code Class#method}.
 */
public class LeaderOnlySource {

	private static final String ANNOTATION = "@LeaderOnly";

	private final DeclarationCache<LeaderOnlyOperation> declarations = new DeclarationCache<>(this::parse);

	private final OnLost defaultOnLost;

	private final @Nullable StringValueResolver placeholders;

	/**
	 * @param defaultOnLost what a lost leadership does to a method that leaves {@code onLost} at its default
	 * @param placeholders resolves {@code ${...}} in the election's name, or null to take it literally
	 */
	public LeaderOnlySource(OnLost defaultOnLost, @Nullable StringValueResolver placeholders) {
		this.defaultOnLost = defaultOnLost;
		this.placeholders = placeholders;
	}

	/**
	 * The declaration on a method as seen through a target class, or null when the method has none.
	 * @throws LockDefinitionException if the declaration cannot work
	 */
	public @Nullable LeaderOnlyOperation getOperation(Method method, @Nullable Class<?> targetClass) {
		return this.declarations.get(method, targetClass);
	}

	/** The elections named by the declarations parsed so far: at the end of start-up, those of every bean created. */
	public Set<String> elections() {
		Set<String> names = new TreeSet<>();
		this.declarations.declarations().forEach((operation) -> names.add(operation.election()));
		return names;
	}

	private @Nullable LeaderOnlyOperation parse(Method method, @Nullable Class<?> targetClass) {
		if (LockOperationSource.isSuspendBody(method)) {
			return null;
		}
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		MergedAnnotation<LeaderOnly> declared = find(specific);
		if (!declared.isPresent() && specific != method) {
			declared = find(method);
		}
		if (!declared.isPresent()) {
			return null;
		}
		Class<?> owner = (targetClass != null) ? targetClass : method.getDeclaringClass();
		String methodId = owner.getSimpleName() + "#" + method.getName();
		String notInterceptable = LockOperationSource.notInterceptable(specific);
		if (notInterceptable != null) {
			throw new LockDefinitionException(ANNOTATION, methodId, "the method is " + notInterceptable
					+ ", so no proxy can intercept it and @LeaderOnly would not apply: it would run on every "
					+ "instance; make it public and overridable", null);
		}
		String election = election(methodId, declared.getString("election"));
		LockedCall call = LockOperationSource.lockedCall(specific, methodId);
		checkSkippable(specific, call, methodId);
		OnLost onLost = declared.getEnum("onLost", OnLost.class);
		return new LeaderOnlyOperation(methodId, specific, election,
				(onLost != OnLost.DEFAULT) ? onLost : this.defaultOnLost, call,
				LeaderOnlyOperation.shareRequest(election));
	}

	private static MergedAnnotation<LeaderOnly> find(Method method) {
		return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).get(LeaderOnly.class);
	}

	private String election(String methodId, String text) {
		String election = text;
		if (this.placeholders != null && StringUtils.hasText(text)) {
			try {
				election = this.placeholders.resolveStringValue(text);
			}
			catch (IllegalArgumentException ex) {
				throw new LockDefinitionException(ANNOTATION, methodId, "the election \"" + text + "\" has a "
						+ "placeholder that cannot be resolved: " + ex.getMessage(), ex);
			}
		}
		if (!StringUtils.hasText(election)) {
			throw new LockDefinitionException(ANNOTATION, methodId, "it names no election; name one, as in "
					+ "@LeaderOnly(\"nightly-billing\")", null);
		}
		return election.strip();
	}

	/**
	 * A call skipped where this instance does not lead returns nothing, so the method's result must be able to say
	 * nothing: no result, an empty one, or one that an {@code @Async} proxy makes of the body's.
	 */
	private static void checkSkippable(Method method, LockedCall call, String methodId) {
		Class<?> type = method.getReturnType();
		boolean skippable = call != SynchronousLockedCall.INSTANCE || type == void.class || type == Void.class
				|| type == Optional.class || LockOperationSource.runsAsync(method);
		if (!skippable) {
			throw new LockDefinitionException(ANNOTATION, methodId, "the call is skipped where this instance does "
					+ "not lead, and a skipped call returns nothing, which " + type.getSimpleName() + " cannot say; "
					+ "return void, Optional, CompletionStage, CompletableFuture, Mono or Flux", null);
		}
	}

}
