package io.github.distlock.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Recognises a key expression that is nothing but a reference to one argument ({@code #id}, {@code #p0},
 * {@code #a1}), so a call can take that argument as it is instead of evaluating SpEL, which costs a new
 * {@link org.springframework.context.expression.MethodBasedEvaluationContext} with every argument bound under three
 * names.
 */
final class KeyArgument {

	/** The key expression needs SpEL: it is more than a reference to one argument. */
	static final int NONE = -1;

	private KeyArgument() {
	}

	/**
	 * The index of the argument that the key expression evaluates to on every call of the method, or {@link #NONE}.
	 * @param parameterNames the discoverer the SpEL path uses for the same method, so both see the same names
	 */
	static int indexOf(Expression key, Method method, ParameterNameDiscoverer parameterNames) {
		String variable = referencedVariable(key);
		if (variable == null) {
			return NONE;
		}
		String[] names = parameterNames.getParameterNames(method);
		int count = method.getParameterCount();
		if (names != null && names.length != count) {
			return NONE;
		}
		// The same names bound in the same order as MethodBasedEvaluationContext, where a later binding of a name
		// replaces an earlier one: a parameter called "p1" at index 0 loses #p1 to the argument at index 1.
		int index = NONE;
		for (int i = 0; i < count; i++) {
			if (variable.equals("a" + i) || variable.equals("p" + i)
					|| (names != null && variable.equals(names[i]))) {
				index = i;
			}
		}
		return index;
	}

	/**
	 * The variable the whole expression refers to, or null. {@code #this} and {@code #root} are not variables but
	 * the evaluation's objects, even for a method with a parameter called {@code root}.
	 */
	private static @Nullable String referencedVariable(Expression key) {
		if (!(key instanceof SpelExpression spel)) {
			return null;
		}
		SpelNode node = spel.getAST();
		if (!(node instanceof VariableReference)) {
			return null;
		}
		String variable = node.toStringAST().substring(1);
		return (variable.equals("this") || variable.equals("root")) ? null : variable;
	}

}
