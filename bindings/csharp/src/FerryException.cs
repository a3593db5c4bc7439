using System;

namespace Ferry {

/// <summary>A ferry error: one subclass per ferry status, each with ferry's message (it names
/// the argument and the value).</summary>
public class FerryException : Exception {
  public Status Status { get; private set; }

  public FerryException(Status status, string message) : base(status + ": " + message) {
    Status = status;
  }

  /// <summary>The same error, its message led by where (which batch of a loop): ferry's own message
  /// names only the argument of that one call.</summary>
  internal FerryException Within(string where) {
    string prefix = Status + ": ";
    string message = Message.StartsWith(prefix) ? Message.Substring(prefix.Length) : Message;
    return FromStatus((int)Status, where + ": " + message);
  }

  internal static FerryException FromStatus(int code, string message) {
    switch ((Status)code) {
      case Status.ErrInvalidArgument: return new InvalidArgumentException(message);
      case Status.ErrInvalidHandle: return new InvalidHandleException(message);
      case Status.ErrStructSize: return new StructSizeException(message);
      case Status.ErrUnsupported: return new UnsupportedException(message);
      case Status.ErrOverflow: return new OverflowException(message);
      case Status.ErrOutOfRange: return new OutOfRangeException(message);
      case Status.ErrOutOfMemory: return new OutOfMemoryException(message);
      case Status.ErrNoDevice: return new NoDeviceException(message);
      case Status.ErrCuda: return new CudaException(message);
      case Status.ErrNotFound: return new NotFoundException(message);
      case Status.ErrAlreadyExists: return new AlreadyExistsException(message);
      case Status.ErrNotReady: return new NotReadyException(message);
      case Status.ErrBusy: return new BusyException(message);
      case Status.ErrSourceTooSmall: return new SourceTooSmallException(message);
      case Status.ErrOutputTooSmall: return new OutputTooSmallException(message);
      default: return new InternalException(message);
    }
  }
}

/// <summary>A null, a zero or negative size, a bad value.</summary>
public class InvalidArgumentException : FerryException { public InvalidArgumentException(string m) : base(Status.ErrInvalidArgument, m) {} }
/// <summary>A disposed, released or foreign handle.</summary>
public class InvalidHandleException : FerryException { public InvalidHandleException(string m) : base(Status.ErrInvalidHandle, m) {} }
public class StructSizeException : FerryException { public StructSizeException(string m) : base(Status.ErrStructSize, m) {} }
public class UnsupportedException : FerryException { public UnsupportedException(string m) : base(Status.ErrUnsupported, m) {} }
public class OverflowException : FerryException { public OverflowException(string m) : base(Status.ErrOverflow, m) {} }
public class OutOfRangeException : FerryException { public OutOfRangeException(string m) : base(Status.ErrOutOfRange, m) {} }
public class OutOfMemoryException : FerryException { public OutOfMemoryException(string m) : base(Status.ErrOutOfMemory, m) {} }
/// <summary>A CUDA device was asked for: no driver or no such GPU.</summary>
public class NoDeviceException : FerryException { public NoDeviceException(string m) : base(Status.ErrNoDevice, m) {} }
public class CudaException : FerryException { public CudaException(string m) : base(Status.ErrCuda, m) {} }
public class NotFoundException : FerryException { public NotFoundException(string m) : base(Status.ErrNotFound, m) {} }
public class AlreadyExistsException : FerryException { public AlreadyExistsException(string m) : base(Status.ErrAlreadyExists, m) {} }
public class NotReadyException : FerryException { public NotReadyException(string m) : base(Status.ErrNotReady, m) {} }
public class BusyException : FerryException { public BusyException(string m) : base(Status.ErrBusy, m) {} }
/// <summary>A source buffer smaller than its shape and strides reach.</summary>
public class SourceTooSmallException : FerryException { public SourceTooSmallException(string m) : base(Status.ErrSourceTooSmall, m) {} }
/// <summary>An output buffer smaller than its shape and strides reach.</summary>
public class OutputTooSmallException : FerryException { public OutputTooSmallException(string m) : base(Status.ErrOutputTooSmall, m) {} }
/// <summary>A bug in ferry: please report the message.</summary>
public class InternalException : FerryException { public InternalException(string m) : base(Status.ErrInternal, m) {} }

/// <summary>Checks at load that the native library has this assembly's ABI (the same major, while
/// 0.x the same minor too) and at least its version; a missing library gives a
/// DllNotFoundException that says what to do.</summary>
static class VersionCheck {
  internal static bool Run() {
    int found;
    try {
      found = LibraryPINVOKE.Version();
    } catch (DllNotFoundException e) {
      throw new DllNotFoundException("ferry: cannot load libferry_csharp.so (and libferry). Put them "
          + "next to Ferry.dll or on LD_LIBRARY_PATH (Unity: Assets/Plugins/x86_64). " + e.Message, e);
    }
    int built = Library.FERRY_VERSION_NUMBER;
    bool sameAbi = found / 10000 == built / 10000 && (built >= 10000 || found / 100 == built / 100);
    if (!sameAbi || found < built) {
      string series = built >= 10000 ? (built / 10000) + ".x" : "0." + (built / 100) + ".x";
      throw new DllNotFoundException("ferry: the loaded libferry is version " + found
          + ", this assembly needs " + series + " at least " + built);
    }
    return true;
  }
}

}  // namespace Ferry

#if !UNITY_5_3_OR_NEWER
namespace AOT {
/// <summary>Marks native-to-managed callbacks for AOT runtimes (Unity defines its own).</summary>
[AttributeUsage(AttributeTargets.Method)]
class MonoPInvokeCallbackAttribute : Attribute {
  public MonoPInvokeCallbackAttribute(Type type) {}
}
}
#endif
