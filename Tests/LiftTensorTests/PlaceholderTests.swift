// Placeholder so the test target builds until LiftTensor's tests land.
import LiftTensor
import Testing
