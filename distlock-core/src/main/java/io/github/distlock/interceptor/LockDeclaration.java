package io.github.distlock.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.StringUtils;

import io.github.distlock.DistributedLock;
import io.github.distlock.DistributedLockConfig;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.LockMode;
import io.github.distlock.OnLost;

/**
 * The attributes a method's lock is declared with, as written: its {@link DistributedLock} (directly or through a
 * composed annotation, aliases merged), with empty attributes taken from the {@link DistributedLockConfig} of the
 * class that declares the method. Resolving placeholders, parsing and the {@code distlock.*} defaults are
 * {@link LockOperationSource}'s.
 */
final class LockDeclaration {

	private final MergedAnnotation<DistributedLock> lock;

	private final MergedAnnotation<DistributedLockConfig> classDefaults;

	/** Where the class's defaults come from, for messages; null when the class has none. */
	private final @Nullable String classDefaultsSource;

	private LockDeclaration(MergedAnnotation<DistributedLock> lock, MergedAnnotation<DistributedLockConfig> classDefaults,
			@Nullable String classDefaultsSource) {
		this.lock = lock;
		this.classDefaults = classDefaults;
		this.classDefaultsSource = classDefaultsSource;
	}

	/**
	 * The declaration of the method's lock, or null when it has none.
	 * @param specific the most specific method, whose declaring class supplies the class defaults
	 * @param method the method as invoked, searched when the specific one carries no lock
	 * @throws LockDefinitionException if the method carries more than one lock
	 */
	static @Nullable LockDeclaration find(Method specific, Method method, String methodId) {
		MergedAnnotation<DistributedLock> lock = nearest(specific, methodId);
		if (!lock.isPresent() && specific != method) {
			lock = nearest(method, methodId);
		}
		if (!lock.isPresent()) {
			return null;
		}
		Class<?> declaringClass = specific.getDeclaringClass();
		MergedAnnotation<DistributedLockConfig> classDefaults = MergedAnnotations
			.from(declaringClass, SearchStrategy.TYPE_HIERARCHY)
			.get(DistributedLockConfig.class);
		String source = classDefaults.isPresent()
				? "@DistributedLockConfig on " + sourceName(classDefaults.getSource(), declaringClass) : null;
		return new LockDeclaration(lock, classDefaults, source);
	}

	/**
	 * The lock declared nearest to the method: on the method itself, else on the nearest method it overrides, so an
	 * override's annotation replaces the inherited one. Two at the same level are an error, not a choice.
	 */
	private static MergedAnnotation<DistributedLock> nearest(Method method, String methodId) {
		List<MergedAnnotation<DistributedLock>> found = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY)
			.stream(DistributedLock.class)
			.toList();
		if (found.isEmpty()) {
			return MergedAnnotation.missing();
		}
		int level = found.get(0).getAggregateIndex();
		List<MergedAnnotation<DistributedLock>> nearest = found.stream()
			.filter((lock) -> lock.getAggregateIndex() == level)
			.toList();
		if (nearest.size() > 1) {
			throw new LockDefinitionException(methodId, "the method carries " + nearest.size() + " locks ("
					+ nearest.stream().map(LockDeclaration::howDeclared).collect(Collectors.joining(", "))
					+ "); a method takes one lock, so keep one of these annotations", null);
		}
		return nearest.get(0);
	}

	/** How a lock annotation reaches the method, for messages: "@DistributedLock" or "@OrderLock". */
	private static String howDeclared(MergedAnnotation<DistributedLock> lock) {
		List<Class<? extends Annotation>> path = lock.getMetaTypes();
		if (path.size() == 1) {
			return "@DistributedLock";
		}
		return "@DistributedLock through @" + path.get(0).getSimpleName();
	}

	private static String sourceName(@Nullable Object source, Class<?> fallback) {
		Class<?> type = (source instanceof Class<?> declared) ? declared : fallback;
		return type.getSimpleName();
	}

	String key() {
		return this.lock.getString("key");
	}

	String[] keys() {
		return this.lock.getStringArray("keys");
	}

	String name() {
		return attribute("name");
	}

	String lease() {
		return attribute("lease");
	}

	String waitTime() {
		return attribute("waitTime");
	}

	String maxLease() {
		return attribute("maxLease");
	}

	OnLost onLost() {
		OnLost onLost = this.lock.getEnum("onLost", OnLost.class);
		if (onLost == OnLost.DEFAULT && this.classDefaults.isPresent()) {
			return this.classDefaults.getEnum("onLost", OnLost.class);
		}
		return onLost;
	}

	boolean autoRenew() {
		return this.lock.getBoolean("autoRenew");
	}

	boolean reentrant() {
		return this.lock.getBoolean("reentrant");
	}

	LockMode mode() {
		return this.lock.getEnum("mode", LockMode.class);
	}

	String permits() {
		return this.lock.getString("permits");
	}

	String fallback() {
		return this.lock.getString("fallback");
	}

	/**
	 * The attribute as messages name it: just its name when the method sets it, with the class that supplied it
	 * otherwise.
	 */
	String describe(String attribute) {
		if (StringUtils.hasText(this.lock.getString(attribute)) || !this.classDefaults.isPresent()
				|| !StringUtils.hasText(this.classDefaults.getString(attribute))) {
			return attribute;
		}
		return attribute + " (from " + this.classDefaultsSource + ")";
	}

	private String attribute(String attribute) {
		String value = this.lock.getString(attribute);
		if (!StringUtils.hasText(value) && this.classDefaults.isPresent()) {
			return this.classDefaults.getString(attribute);
		}
		return value;
	}

}
