/* SPDX-License-Identifier: MIT */
/* A program that links GLFW the way its README says: pkg-config --static --libs glfw3. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <stdio.h>

int main(void)
{
	puts(glfwGetVersionString());
	return 0;
}
