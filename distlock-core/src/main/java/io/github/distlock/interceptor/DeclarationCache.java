package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodClassKey;

/**
 * What an annotation declares on each method as seen through a target class, parsed once: the answer for a method
 * without the annotation is remembered too, since every call of every advised method asks. A declaration that fails
 * to parse is not remembered, so it fails again, naming the method, wherever it is asked for.
 *
 * @param <T> the parsed declaration
 */
final class DeclarationCache<T> {

	private final Map<MethodClassKey, Optional<T>> parsed = new ConcurrentHashMap<>(64);

	private final BiFunction<Method, @Nullable Class<?>, @Nullable T> parser;

	/** @param parser the declaration on a method seen through a target class, or null when there is none */
	DeclarationCache(BiFunction<Method, @Nullable Class<?>, @Nullable T> parser) {
		this.parser = parser;
	}

	/** The declaration on the method as seen through the target class, or null when it has none. */
	@Nullable T get(Method method, @Nullable Class<?> targetClass) {
		MethodClassKey key = new MethodClassKey(method, targetClass);
		Optional<T> cached = this.parsed.get(key);
		if (cached == null) {
			cached = Optional.ofNullable(this.parser.apply(method, targetClass));
			this.parsed.put(key, cached);
		}
		return cached.orElse(null);
	}

	/** Every declaration parsed so far: at the end of start-up, those of every bean created. */
	List<T> declarations() {
		return this.parsed.values().stream().flatMap(Optional::stream).toList();
	}

}
