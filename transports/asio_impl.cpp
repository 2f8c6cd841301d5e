// The one translation unit that compiles the non-template parts of Asio and Beast
// (see BOOST_*_SEPARATE_COMPILATION in cmake/dependencies.cmake).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
